package planner

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
)

// ActionAwaiting: --check found a Manual plan that is not on its target
// branch in an open proposal, waiting for approval: not a finding (nor is
// ActionRejected, a target whose proposal was closed).
const ActionAwaiting Action = "awaiting-approval"

// setCheckForge picks the forge --check reads proposals from: the one
// olmops.yaml configures (GitHub, say), or the git-only forge of a
// repository without origin. A forge that cannot be reached here (no
// token in CI) leaves --check without proposals: it then reports the
// plans stale, as it cannot show otherwise. A check of another revision
// (--ref) does not look at proposals at all.
func (p *Planner) setCheckForge(repo *v1alpha1.RepositoryConfig) error {
	if p.opts.Ref != "" {
		return nil
	}
	if p.opts.Forge != nil {
		f, err := p.opts.Forge(repo)
		if err != nil {
			p.forgeNote = "proposals not read: " + err.Error()
			return nil
		}
		p.forge = f
	}
	if p.forge == nil && !p.opts.Repo.HasRemote() {
		p.forge = gitsource.NewGitForge(p.opts.Repo)
	}
	return nil
}

// checkProposal tells where a Manual plan that is not on its target branch
// stands: awaiting approval in an open proposal of the same target,
// rejected by a closed one, or stale with no proposal (the only finding).
func (p *Planner) checkProposal(ctx context.Context, pr *plan.Proposal) ([]PlanReport, error) {
	stale := func(note string) []PlanReport {
		reports := p.planReports(pr, ActionStale, "", nil)
		noteAll(reports, note)
		return reports
	}
	if p.forge == nil {
		return stale(p.forgeNote), nil
	}
	existing, err := p.forge.Proposals(ctx, pr.Branch())
	if err != nil {
		return nil, fmt.Errorf("check %s: %w", pr.Branch(), err)
	}
	to := pr.Main.File.Spec.To.Name
	for _, e := range existing {
		m, ok := plan.ParseMarker(e.Body)
		if !ok || m.To != to {
			continue
		}
		var action Action
		var note string
		switch e.State {
		case gitsource.ProposalOpen:
			action, note = ActionAwaiting, "awaiting approval in proposal "+proposalName(e)
			if m.Inputs != pr.Marker().Inputs {
				note += " (its inputs changed since: the next plan --push updates it)"
			}
		case gitsource.ProposalClosed:
			action, note = ActionRejected, "rejected: proposal "+proposalName(e)+" was closed without merging"
		default:
			continue // merged, yet not on the branch: stale
		}
		logr.FromContextOrDiscard(ctx).V(1).Info("checked proposal", "proposal", pr.Branch(), "action", action)
		reports := p.planReports(pr, action, e.HeadCommit, &e)
		noteAll(reports, note)
		return reports, nil
	}
	return stale("no proposal carries it"), nil
}
