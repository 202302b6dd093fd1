// Package planning is the planning controller of olmops serve: it
// reconciles Planner objects (olmops.io/v1alpha1) by running, in the
// cluster, what `olmops plan --push` runs from a terminal or CI.
//
// A pass is a list of steps (Reconciler.steps): read the Secrets, fetch
// the branch, decide whether planning is due, read olmops.yaml, plan and
// propose. Planning is due when the fetched head is not the last planned
// commit, the spec changed, the last pass did not succeed, or
// spec.interval passed since the last plan (proposals may have been
// merged or closed meanwhile). A pass that is not due costs one fetch.
//
// What a pass reports is what happened: lastPlannedCommit moves only
// when every selected cluster was planned and every change pushed and
// proposed (package planner checks that its commits are on the remote).
// A broken olmops.yaml, catalog or subscription stalls the Planner with
// the file and line (InvalidInput); nothing is proposed for the cluster
// concerned and its proposals in status are kept. A failure expected to
// pass (fetch, push, the forge down or rate limited) sets Ready=False with
// the time of the next attempt, which backs off exponentially. A pass
// killed half-way is converged by the next one: planning is idempotent,
// an unchanged proposal is the same commit and is not pushed again.
//
// A pass also plans when the soak that alone held a following cluster's
// change ends (status.nextPromotionTime); PromotionHeld says what
// promotion holds. The backoff of failing passes is kept in the status,
// so that a restarted controller or a new leader continues it. The
// planning itself stays planner.Run.
package planning
