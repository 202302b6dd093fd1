package gitsource

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// DefaultBranch names the branch a person works on: the checked-out branch
// of a repository opened by Path, or the branch the remote's HEAD points
// at for a cache clone (asked of the remote, which costs a round trip).
func (r *Repo) DefaultBranch(ctx context.Context) (string, error) {
	if !r.mirror {
		r.mu.Lock()
		head, err := r.r.Storer.Reference(plumbing.HEAD)
		r.mu.Unlock()
		if err != nil {
			return "", fmt.Errorf("gitsource: default branch: %w", err)
		}
		if head.Type() != plumbing.SymbolicReference || !head.Target().IsBranch() {
			return "", fmt.Errorf("gitsource: default branch: HEAD is detached; name a branch")
		}
		return head.Target().Short(), nil
	}
	r.mu.Lock()
	rem, err := r.r.Remote(RemoteName)
	r.mu.Unlock()
	if err != nil {
		return "", fmt.Errorf("gitsource: default branch: %w", err)
	}
	refs, err := rem.ListContext(ctx, &git.ListOptions{Auth: r.auth})
	if err != nil {
		return "", fmt.Errorf("gitsource: default branch of %s: %w", r.url, err)
	}
	for _, ref := range refs {
		if ref.Name() == plumbing.HEAD && ref.Type() == plumbing.SymbolicReference && ref.Target().IsBranch() {
			return ref.Target().Short(), nil
		}
	}
	return "", fmt.Errorf("gitsource: default branch of %s: the remote does not say; name a branch", r.url)
}
