package gitsource

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// The hands-off rule, shared by every writer of proposal branches (plans
// and catalog imports): a branch olmops proposes from is olmops' own only
// while every commit on it past its base is olmops'. Someone else's commit
// there (a reviewer's fix, say) is never force-pushed away; the branch is
// left alone, and said so once on the proposal, until those commits are
// gone or the proposal is closed. An olmops-only branch is rewritten only
// when what it proposes changed or it no longer merges cleanly.

// ProposalHead is a proposal branch as the remote has it when remote is
// set (as last fetched), else the local branch; zero when there is none.
func (r *Repo) ProposalHead(ctx context.Context, branch string, remote bool) (plumbing.Hash, error) {
	ref := plumbing.NewBranchReferenceName(branch)
	if remote {
		ref = plumbing.NewRemoteReferenceName(RemoteName, branch)
	}
	h, err := r.Resolve(ctx, ref.String())
	if errors.Is(err, ErrNotFound) {
		return plumbing.ZeroHash, nil
	}
	return h, err
}

// Foreign lists the commits on head that base lacks and that author (by
// name and email) did not make, newest first, reading at most limit
// commits. Past the limit it still returns the foreign commits it found;
// only when it found none does it fail (ErrTooMany), as it cannot tell.
func (r *Repo) Foreign(ctx context.Context, base, head plumbing.Hash, author object.Signature, limit int) ([]CommitInfo, error) {
	ahead, err := r.Ahead(ctx, base, head, limit)
	if err != nil && !errors.Is(err, ErrTooMany) {
		return nil, err
	}
	var out []CommitInfo
	for _, c := range ahead {
		if c.Author.Name != author.Name || c.Author.Email != author.Email {
			out = append(out, c)
		}
	}
	if len(out) == 0 && err != nil {
		return nil, err
	}
	return out, nil
}

// Short names a commit for people: "hash12 subject (author email)".
func (c CommitInfo) Short() string {
	subject, _, _ := strings.Cut(c.Message, "\n")
	return fmt.Sprintf("%s %s (%s)", c.Hash.String()[:12], subject, c.Author.Email)
}

// Untouched tells whether none of dirs changed on base since the commit
// since: a proposal based on since that writes only dirs still merges
// cleanly into base, and rebasing it would only reset its reviews.
func (r *Repo) Untouched(ctx context.Context, base, since plumbing.Hash, dirs []string) (bool, error) {
	changed, err := r.LastChanged(ctx, base, dirs)
	if err != nil {
		return false, err
	}
	for _, c := range changed {
		if ok, err := r.IsAncestor(ctx, c, since); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// UnderReview tells whether a proposal branch with these proposals is
// still being reviewed: one of them is open, or the forge keeps no
// proposals apart from the branch (git-only, or none found at all).
func UnderReview(existing []Proposal) bool {
	return len(existing) == 0 || slices.ContainsFunc(existing, func(e Proposal) bool { return e.State == ProposalOpen })
}

// OpenProposal is the open proposal among existing; nil when none is.
func OpenProposal(existing []Proposal) *Proposal {
	for i := range existing {
		if existing[i].State == ProposalOpen {
			return &existing[i]
		}
	}
	return nil
}

// CommentOnce leaves the comment body makes on p unless a comment there
// already holds marker: whichever run or process said it first, it is
// said once. body runs only when the comment is due.
func CommentOnce(ctx context.Context, c Commenter, p *Proposal, marker string, body func() (string, error)) error {
	comments, err := c.Comments(ctx, p)
	if err != nil {
		return err
	}
	if slices.ContainsFunc(comments, func(s string) bool { return strings.Contains(s, marker) }) {
		return nil
	}
	text, err := body()
	if err != nil {
		return err
	}
	return c.Comment(ctx, p, text)
}
