package gitsource

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-logr/logr"
)

// ProposalRefPrefix names the record of a git-only proposal:
// refs/olmops/proposals/<head branch>.
const ProposalRefPrefix = OlmopsRefPrefix + "proposals/"

// How often a GitForge write that lost a race is re-done, and the first
// wait; a lost race means another writer landed, so a few suffice.
const (
	forgeAttempts = 10
	forgeBackoff  = 10 * time.Millisecond
)

// GitForge is a Forge on any git server, made only of refs: no pull
// requests, no API.
//
// A proposal is its head branch (under ForcePushPrefix) plus a record, the
// ref refs/olmops/proposals/<head>. The record is a commit whose only
// parent is the head commit last proposed, whose message is the title, a
// blank line and the body, and whose tree holds proposal.json with the
// base branch and the labels. A proposal is merged when the proposed commit
// is an ancestor of the base branch (a merge commit or a fast-forward), else
// open while the head branch exists, else closed: deleting the head branch
// rejects it. A squash or rebase merge writes new commits, so it reads as
// open until the head branch is deleted, then as closed.
//
// Commit statuses are JSON notes on refs/notes/olmops, readable with git
// notes --ref=olmops show <commit>: each note is
// {"statuses":[{"context":…,"state":…,"description":…,"targetURL":…}]},
// the latest status per context, sorted by context.
//
// With a remote, every call fetches first and every write is pushed, the
// records under a lease and the notes as fast-forwards, re-done from a new
// fetch when another writer got there first. On a repository without a
// remote the refs are written locally. Proposals have Number 0 and no URL.
// The GitForges of one Repo serialise their writes.
type GitForge struct {
	repo *Repo
	// Author writes the record and notes commits; set it before first use.
	Author object.Signature
}

var _ Forge = (*GitForge)(nil)

// NewGitForge returns the git-only forge of r, writing as olmops.
func NewGitForge(r *Repo) *GitForge {
	return &GitForge{repo: r, Author: object.Signature{Name: "olmops", Email: "olmops@localhost"}}
}

// write runs fn under the Repo's forge lock, re-running it after a lost
// push race.
func (f *GitForge) write(ctx context.Context, fn func(context.Context) error) error {
	f.repo.forgeMu.Lock()
	defer f.repo.forgeMu.Unlock()
	return RetryOnConflict(ctx, forgeAttempts, forgeBackoff, fn)
}

// refresh fetches specs (all of Fetch's when none) from the remote, if any.
func (f *GitForge) refresh(ctx context.Context, specs ...config.RefSpec) error {
	switch {
	case !f.repo.HasRemote():
		return nil
	case len(specs) == 0:
		return f.repo.Fetch(ctx)
	}
	return f.repo.fetchOnly(ctx, specs...)
}

// Proposals returns the proposal of head, if it was ever proposed.
func (f *GitForge) Proposals(ctx context.Context, head string) ([]Proposal, error) {
	if err := checkHead(head); err != nil {
		return nil, nil // never proposed: Propose refuses such heads
	}
	if err := f.refresh(ctx); err != nil {
		return nil, err
	}
	rec, err := f.repo.readRecord(ctx, head)
	if rec == nil || err != nil {
		return nil, err
	}
	p, err := f.proposal(ctx, rec)
	if err != nil {
		return nil, err
	}
	return []Proposal{*p}, nil
}

// Propose records req.Head's commit as proposed into req.Base, with
// req.Title, req.Body and req.Labels; an unchanged proposal is not written
// again. The head must be a branch under ForcePushPrefix, pushed.
func (f *GitForge) Propose(ctx context.Context, req ProposalRequest) (*Proposal, error) {
	fail := func(err error) (*Proposal, error) {
		return nil, fmt.Errorf("gitsource: propose %s into %s: %w", req.Head, req.Base, err)
	}
	want, err := newRecord(req)
	if err != nil {
		return fail(err)
	}
	var p *Proposal
	err = f.write(ctx, func(ctx context.Context) error {
		if err := f.refresh(ctx); err != nil {
			return err
		}
		if want.proposed, err = f.repo.RemoteRef(ctx, branchRef(req.Head)); err != nil {
			return fmt.Errorf("head branch not pushed: %w", err)
		}
		if _, err := f.repo.RemoteRef(ctx, branchRef(req.Base)); err != nil {
			return fmt.Errorf("base branch: %w", err)
		}
		old, err := f.repo.readRecord(ctx, req.Head)
		if err != nil {
			return err
		}
		if old == nil || !old.equal(want) {
			if err := f.writeRecord(ctx, want); err != nil {
				return err
			}
		}
		p, err = f.proposal(ctx, want)
		return err
	})
	if err != nil {
		return fail(err)
	}
	return p, nil
}

// writeRecord commits rec on its record ref and pushes it under a lease.
func (f *GitForge) writeRecord(ctx context.Context, rec *record) error {
	meta, err := rec.encodeMeta()
	if err != nil {
		return err
	}
	name := ProposalRefPrefix + rec.head
	_, err = f.repo.Commit(ctx, CommitRequest{
		Parent: rec.proposed, Ref: name, Message: rec.message(), Author: f.Author,
		Files: map[string][]byte{recordFile: meta}, fromEmpty: true,
	})
	if err != nil || !f.repo.HasRemote() {
		return err
	}
	return f.repo.PushRef(ctx, name, true)
}

// proposal reads the state of the proposal rec records.
func (f *GitForge) proposal(ctx context.Context, rec *record) (*Proposal, error) {
	p := &Proposal{
		Head: rec.head, Base: rec.base, HeadCommit: rec.proposed.String(),
		Title: rec.title, Body: rec.body, Labels: rec.labels, State: ProposalOpen,
	}
	base, err := f.repo.RemoteRef(ctx, branchRef(rec.base))
	switch {
	case err == nil:
		merged, err := f.repo.IsAncestor(ctx, rec.proposed, base)
		if err != nil {
			return nil, err
		}
		if merged {
			p.State = ProposalMerged
			return p, nil
		}
	case !errors.Is(err, ErrNotFound):
		return nil, err
	}
	if _, err := f.repo.RemoteRef(ctx, branchRef(rec.head)); errors.Is(err, ErrNotFound) {
		p.State = ProposalClosed
	} else if err != nil {
		return nil, err
	}
	return p, nil
}

// Close deletes the proposal's head branch, which rejects it; the record
// stays, so the proposal reads as closed. A git server has nowhere to
// leave comment, so it is only logged. Heads outside ForcePushPrefix are
// refused with ErrForceRefused.
func (f *GitForge) Close(ctx context.Context, p *Proposal, comment string) error {
	if p == nil {
		return errors.New("gitsource: close: no proposal")
	}
	if err := checkHead(p.Head); err != nil {
		return fmt.Errorf("gitsource: close %s: %w", p.Head, err)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("closing proposal", "head", p.Head, "comment", comment)
	return f.write(ctx, func(ctx context.Context) error {
		return f.repo.DeleteRef(ctx, branchRef(p.Head))
	})
}

func branchRef(branch string) string { return plumbing.NewBranchReferenceName(branch).String() }

// checkHead accepts only olmops' own branches as proposal heads.
func checkHead(head string) error {
	name := plumbing.NewBranchReferenceName(head)
	switch {
	case name.Validate() != nil:
		return fmt.Errorf("invalid head branch name %q", head)
	case !owned(name):
		return fmt.Errorf("head %q: %w", head, ErrForceRefused)
	}
	return nil
}
