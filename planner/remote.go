package planner

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/gitsource"
)

var (
	// ErrLocalWork reports a local target branch holding commits its
	// remote lacks that olmops did not make: pushing them would publish
	// someone's unfinished work, dropping them would lose it.
	ErrLocalWork = errors.New("the local branch has commits its remote lacks that olmops did not make: push or drop them, then plan again")
	// ErrNotOnRemote reports a commit the run made that the remote does
	// not hold at the end of the run.
	ErrNotOnRemote = errors.New("a commit olmops made is not on the remote")
)

// maxAhead bounds the walk over a local branch's unpushed commits.
const maxAhead = 100

// tip is the commit to plan branch on: with a remote, the remote's branch
// as just fetched, whatever the local branch holds; else the local one.
func (p *Planner) tip(ctx context.Context, branch string) (plumbing.Hash, error) {
	if p.remote() && p.opts.Ref == "" {
		h, err := p.opts.Repo.RemoteRef(ctx, plumbing.NewBranchReferenceName(branch).String())
		if err == nil || !errors.Is(err, gitsource.ErrNotFound) {
			return h, err
		}
		// The remote has no such branch yet: the first push creates it.
	}
	return p.opts.Repo.Resolve(ctx, branch)
}

// adopt moves the local branch to head, the remote's, before anything is
// committed on it, so what the run commits and pushes is what the local
// branch ends at. Local commits the remote lacks are dropped only when
// olmops made them (a plan committed without --push, or a push that lost
// a race): this run plans them again from the remote's state. Anyone
// else's are refused with ErrLocalWork.
func (p *Planner) adopt(ctx context.Context, branch string, head plumbing.Hash) error {
	local, err := p.opts.Repo.Resolve(ctx, plumbing.NewBranchReferenceName(branch).String())
	switch {
	case errors.Is(err, gitsource.ErrNotFound):
		return nil // Commit creates it, or there is nothing to stage
	case err != nil:
		return err
	case local == head:
		return nil
	}
	ahead, err := p.opts.Repo.Ahead(ctx, head, local, maxAhead)
	if err != nil {
		return err
	}
	var foreign []string
	for _, c := range ahead {
		if !p.ours(c) {
			subject, _, _ := strings.Cut(c.Message, "\n")
			foreign = append(foreign, fmt.Sprintf("%s %q by %s", c.Hash.String()[:12], subject, c.Author.Email))
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("branch %s: %w: %s", branch, ErrLocalWork, strings.Join(foreign, ", "))
	}
	return p.opts.Repo.SetBranch(ctx, branch, head)
}

// ours tells a commit olmops wrote: its author is the planner's identity.
func (p *Planner) ours(c gitsource.CommitInfo) bool {
	return c.Author.Name == p.opts.Author.Name && c.Author.Email == p.opts.Author.Email
}

// verifyPushed fetches once more and checks that every commit the run
// pushed to a target branch is in the remote's branch: exit 0 then means
// the work is on the remote, whatever happened in between.
func (p *Planner) verifyPushed(ctx context.Context) error {
	if len(p.pushed) == 0 {
		return nil
	}
	if err := p.opts.Repo.Fetch(ctx); err != nil {
		return err
	}
	var errs []error
	for branch, h := range p.pushed {
		remote, err := p.opts.Repo.Resolve(ctx, plumbing.NewRemoteReferenceName(gitsource.RemoteName, branch).String())
		if err != nil {
			errs = append(errs, fmt.Errorf("branch %s: %w: %w", branch, ErrNotOnRemote, err))
			continue
		}
		ok, err := p.opts.Repo.IsAncestor(ctx, h, remote)
		switch {
		case err != nil:
			errs = append(errs, err)
		case !ok:
			errs = append(errs, fmt.Errorf("branch %s: %w: %s is not in the remote's %s", branch, ErrNotOnRemote, h, remote))
		}
	}
	return errors.Join(errs...)
}
