// Package planner runs `olmops plan`: it reads the desired state of every
// cluster from git, plans it with package plan, and puts each change where
// people review it. Automatic plans become one commit per cluster on the
// target branch; Manual plans become a branch olmops owns and a proposal
// (a pull request) whose merge is the approval. A proposal closed unmerged
// rejects its target, which is then not proposed again.
//
// With a remote, a run plans on the fetched remote branch, moves the
// local branch to what it pushes (refusing local commits it did not make)
// and fails unless its commits are on the remote at the end. A proposal
// branch with a commit olmops did not make is held, never force-pushed;
// an unchanged proposal that still merges cleanly is not rebased.
//
// A cluster whose inputs are broken gets nothing committed; the others
// proceed. Every write is one commit pushed with a fast-forward check: a
// planner that loses a race re-reads the new head and plans again, so two
// planners, or one killed half-way, converge without duplicates.
package planner
