package sat

import (
	"fmt"
	"slices"

	"github.com/go-air/gini/inter"
	"github.com/go-air/gini/logic"
	"github.com/go-air/gini/z"
)

// option is one way to meet a search choice: assume m. Installing a
// variable (variable is true) queues that variable's own choices; taking an
// Or operand queues the operand's choices (then).
type option struct {
	m        z.Lit
	variable bool
	then     [][]option
}

// encoder translates variables and constraints into clauses over a
// gini/logic circuit whose variables are shared with the SAT solver.
//
// Every applied constraint also gets a guard literal. Loaded with guards,
// each clause becomes "guard implies clause" and the solver assumes the
// guards, so the failed assumptions of an unsatisfiable solve (gini's Why)
// name the constraints involved, one guard per applied constraint. Loaded
// without guards, the clauses are plain and solving is faster.
type encoder struct {
	c       *logic.C
	vars    []Variable
	varLits []z.Lit // varLits[i] is true iff vars[i] is installed
	byID    map[Identifier]int

	applied []AppliedConstraint
	clauses [][][]z.Lit // applied[k] holds iff every clause in clauses[k] does
	guards  []z.Lit     // guards[k] enables applied[k]
	byGuard map[z.Lit]int

	prefs [][][]option // prefs[i]: the choices installing vars[i] adds to the search

	subject Identifier // the variable being encoded, for error messages
	err     error
}

func newEncoder(vars []Variable) (*encoder, error) {
	e := &encoder{
		c:       logic.NewCCap(4 * len(vars)),
		vars:    vars,
		varLits: make([]z.Lit, len(vars)),
		byID:    make(map[Identifier]int, len(vars)),
		byGuard: make(map[z.Lit]int),
		prefs:   make([][][]option, len(vars)),
	}
	for i, v := range vars {
		if v == nil {
			return nil, fmt.Errorf("%w: variable %d is nil", ErrInvalidProblem, i)
		}
		id := v.Identifier()
		if _, dup := e.byID[id]; dup {
			return nil, fmt.Errorf("%w: duplicate identifier %q", ErrInvalidProblem, id)
		}
		e.byID[id] = i
		e.varLits[i] = e.c.Lit()
	}
	for i, v := range vars {
		e.subject = v.Identifier()
		for _, c := range v.Constraints() {
			clauses := e.simplify(e.apply(c, e.varLits[i]))
			if e.err != nil {
				return nil, e.err
			}
			e.prefs[i] = append(e.prefs[i], c.choices(e)...)
			if len(clauses) == 0 {
				continue // always holds; it can take no part in a conflict
			}
			guard := e.c.Lit()
			e.byGuard[guard] = len(e.applied)
			e.applied = append(e.applied, AppliedConstraint{Variable: v, Constraint: c})
			e.clauses = append(e.clauses, clauses)
			e.guards = append(e.guards, guard)
		}
	}
	return e, e.err
}

// load teaches the circuit and the constraints to the solver, each clause
// behind its constraint's guard if guarded.
func (e *encoder) load(g inter.Adder, guarded bool) {
	e.c.ToCnf(g)
	for k, clauses := range e.clauses {
		for _, clause := range clauses {
			if guarded {
				g.Add(e.guards[k].Not())
			}
			for _, m := range clause {
				g.Add(m)
			}
			g.Add(0)
		}
	}
}

// simplify drops clauses that contain the constant true and the constant
// false from the others (an emptied clause keeps false).
func (e *encoder) simplify(clauses [][]z.Lit) [][]z.Lit {
	out := clauses[:0]
	for _, clause := range clauses {
		if slices.Contains(clause, e.c.T) {
			continue
		}
		kept := slices.DeleteFunc(clause, func(m z.Lit) bool { return m == e.c.F })
		if len(kept) == 0 {
			kept = append(kept, e.c.F)
		}
		out = append(out, kept)
	}
	return out
}

// lit returns the literal of the variable named id.
func (e *encoder) lit(id Identifier) z.Lit {
	if i, ok := e.byID[id]; ok {
		return e.varLits[i]
	}
	if e.err == nil {
		e.err = fmt.Errorf("%w: %s references unknown variable %q", ErrInvalidProblem, e.subject, id)
	}
	return e.c.F
}

func (e *encoder) lits(ids []Identifier) []z.Lit {
	ms := make([]z.Lit, len(ids))
	for i, id := range ids {
		ms[i] = e.lit(id)
	}
	return ms
}

// apply encodes c for the subject whose literal is x.
func (e *encoder) apply(c Constraint, x z.Lit) [][]z.Lit {
	if c == nil {
		e.fail("a nil constraint")
		return nil
	}
	return c.apply(e, x)
}

// body encodes the body of a nested condition.
func (e *encoder) body(c Condition) z.Lit {
	if c == nil {
		e.fail("a nil condition")
		return e.c.T
	}
	return c.body(e)
}

func (e *encoder) fail(what string) {
	if e.err == nil {
		e.err = fmt.Errorf("%w: %s has %s", ErrInvalidProblem, e.subject, what)
	}
}

// index returns the position in vars of the variable whose literal is m.
func (e *encoder) index(m z.Lit) int {
	return int(m.Var() - e.varLits[0].Var())
}
