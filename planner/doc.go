// Package planner runs `olmops plan`: it reads the desired state of every
// cluster from git, plans it with package plan, and puts each change where
// people review it. Automatic plans become one commit per cluster on the
// target branch; Manual plans become a branch olmops owns and a proposal
// (a pull request) whose merge is the approval. A proposal closed unmerged
// rejects its target, which is then not proposed again.
//
// A cluster whose inputs are broken gets nothing committed; the others
// proceed. Every write is one commit pushed with a fast-forward check: a
// planner that loses a race re-reads the new head and plans again, so two
// planners, or one killed half-way, converge without duplicates.
package planner
