// Package commitstatus is the language the reconciler and the planner
// share through commit statuses: which context a status is posted under
// and how its description reads. The reconciler writes a Report after each
// apply; the planner parses it back to tell reviewers the operator's state
// and to block a merge while the operator says Upgradeable=False.
//
// The grammar is written down for people in docs/statuses.md; a change
// here must change that file, and old descriptions must still parse.
package commitstatus
