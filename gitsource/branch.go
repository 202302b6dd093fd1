package gitsource

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
)

// ErrTooMany reports a history walk that met more commits than it was
// allowed to read.
var ErrTooMany = errors.New("too many commits")

// Ahead returns the commits reachable from tip but not from base, newest
// first: what a push of tip would add to a branch at base. It reads at
// most limit of them and fails with ErrTooMany past that, so a branch that
// diverged long ago costs a bounded walk.
func (r *Repo) Ahead(ctx context.Context, base, tip plumbing.Hash, limit int) ([]CommitInfo, error) {
	var out []CommitInfo
	seen := map[plumbing.Hash]bool{tip: true}
	queue := []plumbing.Hash{tip}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if !base.IsZero() {
			in, err := r.IsAncestor(ctx, h, base)
			if err != nil {
				return nil, err
			}
			if in {
				continue
			}
		}
		if len(out) == limit {
			return out, fmt.Errorf("gitsource: commits of %s not in %s: %w (more than %d)", tip, base, ErrTooMany, limit)
		}
		c, err := r.CommitInfo(ctx, h)
		if err != nil {
			return nil, err
		}
		out = append(out, *c)
		for _, p := range c.Parents {
			if !seen[p] {
				seen[p] = true
				queue = append(queue, p)
			}
		}
	}
	return out, nil
}

// SetBranch points the local branch at h, creating it if need be: a
// fast-forward, or a reset when the caller has made sure nothing is lost.
// When the branch is checked out, the worktree and index follow as they do
// for Commit, and a worktree with changes where they differ is refused
// (ErrDirtyWorktree).
func (r *Repo) SetBranch(ctx context.Context, branch string, h plumbing.Hash) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	ref := plumbing.NewBranchReferenceName(branch)
	if err := ref.Validate(); err != nil {
		return fmt.Errorf("gitsource: set branch: invalid branch name %q", branch)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, err := r.r.CommitObject(h); err != nil {
		return fmt.Errorf("gitsource: set branch %s: commit %s: %w", branch, h, ErrNotFound)
	}
	old, err := r.r.Storer.Reference(ref)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		old = nil
	case err != nil:
		return fmt.Errorf("gitsource: set branch %s: %w", branch, err)
	case old.Hash() == h:
		return nil
	}
	if err := r.moveRef(ref, old, h, nil); err != nil {
		return fmt.Errorf("gitsource: set branch %s to %s: %w", branch, h, err)
	}
	return nil
}
