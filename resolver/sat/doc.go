// Package sat decides which variables of a dependency problem to install,
// the way Operator Lifecycle Manager (OLM) does, on top of the gini SAT solver.
//
// A problem is a list of [Variable]s; each has an [Identifier] and
// [Constraint]s: [Mandatory], [Prohibited], [Dependency], [Conflict],
// [AtMost], and compound conditions built with [And], [Or] and [Not]
// (enough to encode olm.constraint all/any/not trees whose leaves are
// "one of these bundles"). [Solve] returns the installed variables in input
// order, a [*NotSatisfiable] naming a minimal set of constraints that cannot
// hold together, a [*LimitError], or the context's error.
//
// # What "preferred" means
//
// Many assignments usually satisfy a problem; Solve picks one by a search
// that mirrors OLM's:
//
//  1. Every variable with a Mandatory constraint is a choice with a single
//     candidate, queued in input order.
//  2. Choices are taken from the front of the queue. Taking a choice installs
//     one of its candidates (the first one not yet tried) and appends to the
//     queue, in the order of that variable's constraints, one choice per
//     Dependency (candidates in argument order). And contributes the choices
//     of its operands; Or contributes one choice whose candidates are its
//     operands in order (taking one makes that operand hold and queues the
//     operand's own choices); Not and Conflict contribute none.
//  3. A choice is skipped if a variable among its candidates was installed
//     by an earlier choice, or if one of its Or operands already holds. If
//     taking a candidate contradicts the constraints (by unit propagation,
//     or by a full solve once no choices remain), the search backtracks to
//     the most recent choice and tries its next candidate; a choice whose
//     candidates are exhausted is left to the solver.
//
// So an earlier Dependency candidate is installed whenever some solution
// contains it together with every choice made before it; a later candidate
// is used only when the earlier ones are impossible.
//
// # Minimisation
//
// After the search, the installed variables that no choice asked for
// ("extras") are minimised: the choices are kept, every variable not
// installed in the search's model stays uninstalled, and the smallest number
// of extras that still satisfies all constraints is found with a
// cardinality constraint (a sorting network from gini/logic).
//
// # Guarantees
//
// The same input gives the same output on every run. Solve honours ctx
// cancellation, including inside a long gini solve, and stops with a
// [*LimitError] when the problem or the search exceeds its [Limits].
package sat
