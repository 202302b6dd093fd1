package planner

import (
	"context"
	"fmt"
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
	return p.opts.Repo.ProposalHead(ctx, branch, p.remote())
}

// foreign lists, as "hash subject (author)", the commits on head that the
// target branch at base lacks and olmops did not make.
func (p *Planner) foreign(ctx context.Context, base, head plumbing.Hash) ([]string, error) {
	commits, err := p.opts.Repo.Foreign(ctx, base, head, p.opts.Author, maxAhead)
	var out []string
	for _, c := range commits {
		out = append(out, c.Short())
	}
	return out, err
}

// holdForeign reports a proposal left alone because people committed to
// its branch, and says so once on the pull request where the forge can
// hold comments: the comment is found again by its marker on later runs,
// whichever process made it.
func (p *Planner) holdForeign(ctx context.Context, pr *plan.Proposal, existing []gitsource.Proposal, foreign []string, head plumbing.Hash) ([]PlanReport, error) {
	note := fmt.Sprintf("branch %s has commits olmops did not make (%s): olmops leaves it alone until they are gone or the proposal is closed",
		pr.Branch(), strings.Join(foreign, ", "))
	logr.FromContextOrDiscard(ctx).V(1).Info("proposal branch has foreign commits: left alone", "proposal", pr.Branch(), "commits", foreign)
	open := gitsource.OpenProposal(existing)
	if c, ok := p.forge.(gitsource.Commenter); ok && open != nil {
		err := gitsource.CommentOnce(ctx, c, open, handsOffMarker, func() (string, error) {
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
	return p.opts.Repo.Untouched(ctx, base, info.Parents[0], dirs)
}
