// Package gitsource reads and writes the desired-state repository with
// go-git, without a worktree.
//
// Open opens a repository on disk in place, or keeps a bare clone of a
// remote in a cache folder and fetches into it. Resolve names a commit; a
// Snapshot reads the tree of that commit through io/fs (the catalog loader
// reads straight from git), and TreeHash gives a folder's content address,
// which keys the CatalogCache. Commit writes a set of file changes as one
// commit on a branch, and Push publishes the branch: a push that lost a race
// fails with ErrNonFastForward, and RetryOnConflict re-runs the
// fetch-plan-commit-push cycle with bounded backoff.
//
// Besides branches, Commit writes any ref under refs/ and PushRef pushes it
// (forced only under a lease, and only for olmops' own refs); Fetch also
// brings refs/notes/olmops and refs/olmops/*, which RemoteRef reads as the
// remote last had them. LastChanged names the commit that last changed
// each plan folder, the one statuses are reported on. GitForge is the
// Forge of any git server: proposals are branches with a record ref, and
// commit statuses are JSON git notes.
//
// go-git's object storage is not safe for concurrent use, so a Repo
// serialises its own access to it; a Repo and its Snapshots may be shared
// by goroutines.
package gitsource
