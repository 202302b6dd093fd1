package gitsource

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-logr/logr"
)

// ForcePushPrefix is the only branch namespace Push may force: olmops'
// own proposal branches, never a branch people work on.
const ForcePushPrefix = "olmops/"

// MaxRetryBackoff bounds one wait of RetryOnConflict.
const MaxRetryBackoff = 30 * time.Second

var (
	// ErrNonFastForward reports a push the remote refused because the
	// branch moved since it was fetched: fetch, re-plan on the new head
	// and push again (see RetryOnConflict).
	ErrNonFastForward = errors.New("the remote branch moved since the last fetch (non-fast-forward)")
	// ErrForceRefused reports a force push or a deletion of a ref olmops
	// does not own: anything but branches under ForcePushPrefix,
	// refs/olmops/* and refs/notes/olmops.
	ErrForceRefused = errors.New("force push and delete are allowed only for branches under " + ForcePushPrefix + " and olmops' own refs")
)

// Push sends the local branch to the same branch of the remote. Unless
// force is set the remote branch must be an ancestor of the local one, or
// Push fails with ErrNonFastForward; force is refused (ErrForceRefused)
// outside ForcePushPrefix. Pushing what the remote has already succeeds.
func (r *Repo) Push(ctx context.Context, branch string, force bool) error {
	return r.PushBranches(ctx, []string{branch}, force)
}

// PushBranches is Push of several branches in one push: go-git walks
// every object the remote's refs reach to find what to send, once per
// push, so pushing a hundred proposal branches one by one walked the
// whole repository a hundred times. Either every branch is on the remote
// when it returns nil, or the error names the branches.
func (r *Repo) PushBranches(ctx context.Context, branches []string, force bool) error {
	if len(branches) == 0 {
		return nil
	}
	what := strings.Join(branches, ", ")
	if force {
		for _, b := range branches {
			if !strings.HasPrefix(b, ForcePushPrefix) {
				return fmt.Errorf("gitsource: push %s: %w", b, ErrForceRefused)
			}
		}
	}
	if r.url == "" {
		return fmt.Errorf("gitsource: push %s: %w", what, ErrNoRemote)
	}
	specs := make([]config.RefSpec, 0, len(branches))
	for _, b := range branches {
		ref := plumbing.NewBranchReferenceName(b)
		spec := config.RefSpec(ref.String() + ":" + ref.String())
		if force {
			spec = "+" + spec
		}
		specs = append(specs, spec)
	}
	log := logr.FromContextOrDiscard(ctx)
	log.V(1).Info("pushing", "url", r.url, "branches", branches, "force", force)
	r.mu.Lock()
	err := r.r.PushContext(ctx, &git.PushOptions{RemoteName: RemoteName, RefSpecs: specs, Auth: r.auth})
	r.mu.Unlock()
	if err := pushError(err); err != nil {
		return fmt.Errorf("gitsource: push %s to %s: %w", what, r.url, err)
	}
	return nil
}

// pushError classifies what go-git's push returned: nil when the remote
// has what was pushed.
func pushError(err error) error {
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
		return nil
	case isConflict(err):
		return fmt.Errorf("%w: %v", ErrNonFastForward, err)
	case errors.Is(err, transport.ErrAuthenticationRequired), errors.Is(err, transport.ErrAuthorizationFailed):
		return fmt.Errorf("%w: %w", ErrAuth, err)
	}
	return err
}

// isConflict tells a push that lost a race: go-git's own fast-forward
// check, a lease PushRef required that no longer holds, or the remote's
// refusal when the ref moved in between. go-git reports them only as text.
func isConflict(err error) bool {
	msg := err.Error()
	for _, s := range []string{"non-fast-forward", "fetch first", "failed to update ref", "cannot lock ref", "required to be"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// RetryOnConflict calls fn until it succeeds, fails with an error other
// than ErrNonFastForward, or has been called attempts times. Between calls
// it waits backoff, doubling each time up to MaxRetryBackoff, and gives up
// early when ctx ends. fn must start from a fresh fetch, since the branch
// moved.
func RetryOnConflict(ctx context.Context, attempts int, backoff time.Duration, fn func(context.Context) error) error {
	log := logr.FromContextOrDiscard(ctx)
	wait := backoff
	for i := 1; ; i++ {
		err := fn(ctx)
		if err == nil || !errors.Is(err, ErrNonFastForward) || i >= attempts {
			return err
		}
		log.V(1).Info("push lost a race, retrying", "attempt", i, "wait", wait, "error", err.Error())
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-ctx.Done():
				t.Stop()
				return fmt.Errorf("gitsource: retry after conflict: %w (last: %w)", context.Cause(ctx), err)
			case <-t.C:
			}
		}
		wait = min(2*wait, MaxRetryBackoff)
	}
}
