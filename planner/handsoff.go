package planner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
)

// handsOffMarker ends the one comment olmops leaves on a proposal whose
// branch someone else committed to; finding it means the comment is there.
const handsOffMarker = "<!-- olmops:hands-off -->"

// ActionHeld: the proposal branch holds commits olmops did not make, so
// it was left as it is.
const ActionHeld Action = "held"

// proposalHead is the proposal branch as the remote has it (the local
// branch without a remote); zero when there is none.
func (p *Planner) proposalHead(ctx context.Context, branch string) (plumbing.Hash, error) {
	ref := plumbing.NewBranchReferenceName(branch)
	if p.remote() {
		ref = plumbing.NewRemoteReferenceName(gitsource.RemoteName, branch)
	}
	h, err := p.opts.Repo.Resolve(ctx, ref.String())
	if errors.Is(err, gitsource.ErrNotFound) {
		return plumbing.ZeroHash, nil
	}
	return h, err
}

// foreign lists, as "hash subject (author)", the commits on head that the
// target branch at base lacks and olmops did not make.
func (p *Planner) foreign(ctx context.Context, base, head plumbing.Hash) ([]string, error) {
	ahead, err := p.opts.Repo.Ahead(ctx, base, head, maxAhead)
	if err != nil && !errors.Is(err, gitsource.ErrTooMany) {
		return nil, err
	}
	var out []string
	for _, c := range ahead {
		if !p.ours(c) {
			subject, _, _ := strings.Cut(c.Message, "\n")
			out = append(out, fmt.Sprintf("%s %s (%s)", c.Hash.String()[:12], subject, c.Author.Email))
		}
	}
	if len(out) == 0 && err != nil {
		return nil, err
	}
	return out, nil
}

// stillOpen tells whether a branch olmops found is still under review: a
// proposal of it is open, or the forge keeps no proposals apart from the
// branch (git-only, or no forge at all).
func stillOpen(existing []gitsource.Proposal) bool {
	return len(existing) == 0 || slices.ContainsFunc(existing, func(e gitsource.Proposal) bool { return e.State == gitsource.ProposalOpen })
}

// holdForeign reports a proposal left alone because people committed to
// its branch, and says so once on the pull request where the forge can
// hold comments: the comment is found again by its marker on later runs,
// whichever process made it.
func (p *Planner) holdForeign(ctx context.Context, pr *plan.Proposal, existing []gitsource.Proposal, foreign []string, head plumbing.Hash) ([]PlanReport, error) {
	note := fmt.Sprintf("branch %s has commits olmops did not make (%s): olmops leaves it alone until they are gone or the proposal is closed",
		pr.Branch(), strings.Join(foreign, ", "))
	logr.FromContextOrDiscard(ctx).Info("proposal branch has foreign commits: left alone", "proposal", pr.Branch(), "commits", foreign)
	var open *gitsource.Proposal
	for i := range existing {
		if existing[i].State == gitsource.ProposalOpen {
			open = &existing[i]
			break
		}
	}
	if c, ok := p.forge.(gitsource.Commenter); ok && open != nil {
		err := commentOnce(ctx, c, open, handsOffMarker, func() (string, error) {
			return "olmops will not update this pull request: its branch has commits olmops did not make (" +
				strings.Join(foreign, ", ") + "). Remove them to let olmops update it again, or close it.\n\n" + handsOffMarker, nil
		})
		if err != nil {
			return nil, err
		}
	}
	reports := p.planReports(pr, ActionHeld, head.String(), open)
	noteAll(reports, note)
	return reports, nil
}

// unchanged tells whether head, an olmops-made proposal branch, already
// proposes marker's plan and still merges cleanly into base: none of the
// proposal's plan folders changed on the target since head was based.
// Rebasing it then would only reset its reviews and statuses.
func (p *Planner) unchanged(ctx context.Context, base, head plumbing.Hash, pr *plan.Proposal, marker plan.Marker) (bool, error) {
	info, err := p.opts.Repo.CommitInfo(ctx, head)
	if err != nil {
		return false, err
	}
	if m, ok := plan.ParseMarker(info.Message); !ok || m != marker || len(info.Parents) != 1 {
		return false, nil
	}
	var dirs []string
	for _, pl := range pr.Plans {
		dirs = append(dirs, pl.Dir)
	}
	changed, err := p.opts.Repo.LastChanged(ctx, base, dirs)
	if err != nil {
		return false, err
	}
	for _, c := range changed {
		if ok, err := p.opts.Repo.IsAncestor(ctx, c, info.Parents[0]); err != nil || !ok {
			return false, err
		}
	}
	return true, nil
}

// commentOnce leaves the comment body makes on prop unless a comment there
// already holds marker: whichever run or process said it first, it is
// said once. body runs only when the comment is due.
func commentOnce(ctx context.Context, c gitsource.Commenter, prop *gitsource.Proposal, marker string, body func() (string, error)) error {
	comments, err := c.Comments(ctx, prop)
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
	return c.Comment(ctx, prop, text)
}
