package planner

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
)

// proposalLabel marks every proposal olmops opens.
const proposalLabel = "olmops"

// proposeAll opens or updates the proposals of Manual plans, based on
// base, the target branch's head.
func (p *Planner) proposeAll(ctx context.Context, target string, base plumbing.Hash, prs []*plan.Proposal, report *Report) error {
	if len(prs) == 0 {
		return nil
	}
	states := map[string]gitsource.Status{}
	if p.forge != nil {
		var err error
		if states, err = p.reportedStates(ctx, base, prs); err != nil {
			return err
		}
	}
	// Every branch is written first and pushed in one push (a push walks
	// the remote's whole history once); only then are they proposed.
	var pending []*pendingProposal
	var branches []string
	for _, pr := range prs {
		st := states[pr.Main.Dir]
		pr.State = st.Description
		pr.Graph = graphBlock(pr)
		pp, reports, err := p.prepare(ctx, base, pr, st)
		if err != nil {
			return fmt.Errorf("propose %s: %w", pr.Branch(), err)
		}
		if pp == nil {
			cr := clusterReport(report, pr.Cluster.Name)
			cr.Plans = append(cr.Plans, reports...)
			continue
		}
		pending = append(pending, pp)
		if p.remote() && !pp.keep {
			branches = append(branches, pr.Branch())
		}
	}
	if err := p.opts.Repo.PushBranches(ctx, branches, true); err != nil {
		return fmt.Errorf("propose: %w", err)
	}
	for _, pp := range pending {
		reports, err := p.publish(ctx, target, pp)
		if err != nil {
			return fmt.Errorf("propose %s: %w", pp.pr.Branch(), err)
		}
		cr := clusterReport(report, pp.pr.Cluster.Name)
		cr.Plans = append(cr.Plans, reports...)
	}
	return nil
}

func clusterReport(r *Report, name string) *ClusterReport {
	for i := range r.Clusters {
		if r.Clusters[i].Name == name {
			return &r.Clusters[i]
		}
	}
	r.Clusters = append(r.Clusters, ClusterReport{Name: name})
	return &r.Clusters[len(r.Clusters)-1]
}

// reportedStates reads, for each proposal's plan, the status the cluster
// last posted on the commit that carried the committed plan.
func (p *Planner) reportedStates(ctx context.Context, base plumbing.Hash, prs []*plan.Proposal) (map[string]gitsource.Status, error) {
	var dirs []string
	for _, pr := range prs {
		if pr.Main.Committed != nil {
			dirs = append(dirs, pr.Main.Dir)
		}
	}
	out := map[string]gitsource.Status{}
	if len(dirs) == 0 {
		return out, nil
	}
	carriers, err := p.opts.Repo.LastChanged(ctx, base, dirs)
	if err != nil {
		return nil, err
	}
	byCommit := map[plumbing.Hash][]gitsource.Status{}
	for _, pr := range prs {
		c, ok := carriers[pr.Main.Dir]
		if !ok {
			continue
		}
		sts, seen := byCommit[c]
		if !seen {
			if sts, err = p.forge.Statuses(ctx, c.String()); err != nil {
				return nil, err
			}
			byCommit[c] = sts
		}
		want := commitstatus.Context(pr.Cluster.Name, pr.Main.Namespace, pr.Main.Name)
		for _, s := range sts {
			if s.Context == want {
				out[pr.Main.Dir] = s
			}
		}
	}
	return out, nil
}

// pendingProposal is a proposal whose branch is written, to be pushed
// and proposed.
type pendingProposal struct {
	pr       *plan.Proposal
	st       gitsource.Status
	existing []gitsource.Proposal
	marker   plan.Marker
	// current is the branch's head before this run, head its head now;
	// keep tells they are the same proposal, which is not pushed again.
	current, head plumbing.Hash
	keep          bool
}

// prepare writes one proposal's branch: base plus the plans, its commit
// deterministic (the base's time, the title and the marker), so an
// unchanged proposal is the same commit and a re-run pushes nothing. A
// proposal that is settled here (rejected before, held for a foreign
// commit, or local only) comes back as reports and no pending proposal.
func (p *Planner) prepare(ctx context.Context, base plumbing.Hash, pr *plan.Proposal, st gitsource.Status) (*pendingProposal, []PlanReport, error) {
	log := logr.FromContextOrDiscard(ctx).WithValues("proposal", pr.Branch())
	branch := pr.Branch()
	var existing []gitsource.Proposal
	if p.forge != nil {
		var err error
		if existing, err = p.forge.Proposals(ctx, branch); err != nil {
			return nil, nil, err
		}
	}
	to := pr.Main.File.Spec.To.Name
	for _, e := range existing {
		if m, ok := plan.ParseMarker(e.Body); ok && e.State == gitsource.ProposalClosed && m.To == to {
			log.V(1).Info("target rejected before", "to", to, "proposal", e.Number)
			note := fmt.Sprintf("%s was rejected: proposal %s closed without merging", to, proposalName(e))
			reports := p.planReports(pr, ActionRejected, "", &e)
			noteAll(reports, note)
			return nil, reports, nil
		}
	}
	marker := pr.Marker()
	current, err := p.proposalHead(ctx, branch)
	if err != nil {
		return nil, nil, err
	}
	keep := false
	if !current.IsZero() && gitsource.UnderReview(existing) {
		foreign, err := p.foreign(ctx, base, current)
		if err != nil {
			return nil, nil, err
		}
		if len(foreign) > 0 {
			reports, err := p.holdForeign(ctx, pr, existing, foreign, current)
			return nil, reports, err
		}
		if keep, err = p.unchanged(ctx, base, current, pr, marker); err != nil {
			return nil, nil, err
		}
	}
	head := current
	if !keep {
		if head, err = p.commitProposal(ctx, base, branch, pr, marker); err != nil {
			return nil, nil, err
		}
	}
	if p.forge == nil {
		reports := p.planReports(pr, ActionProposed, head.String(), nil)
		noteAll(reports, "branch "+branch+" is local: run with --push to propose it")
		return nil, reports, nil
	}
	return &pendingProposal{pr: pr, st: st, existing: existing, marker: marker, current: current, head: head, keep: keep}, nil, nil
}

// publish opens or updates the pull request of a pushed proposal branch,
// says what changed since the revision under review, and posts
// olmops/upgradeable on its head.
func (p *Planner) publish(ctx context.Context, target string, pp *pendingProposal) ([]PlanReport, error) {
	pr := pp.pr
	prop, err := p.forge.Propose(ctx, gitsource.ProposalRequest{Head: pr.Branch(), Base: target, Title: pr.Title(), Body: pr.Body(), Labels: []string{proposalLabel}})
	if err != nil {
		return nil, err
	}
	if old, ok := openMarker(pp.existing); ok && !pp.keep && !pp.current.IsZero() {
		if err := p.commentRevision(ctx, prop, old, pp.current, pr, pp.marker, pp.existing); err != nil {
			return nil, err
		}
	}
	if err := p.forge.SetStatus(ctx, pp.head.String(), upgradeable(pr, pp.st, prop)); err != nil {
		return nil, err
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("proposed", "proposal", pr.Branch(), "to", pr.Main.File.Spec.To.Name, "commit", pp.head.String())
	return p.planReports(pr, ActionProposed, pp.head.String(), prop), nil
}

// openMarker is the marker of the open proposal among existing: the
// revision reviewers are looking at.
func openMarker(existing []gitsource.Proposal) (plan.Marker, bool) {
	for _, e := range existing {
		if e.State == gitsource.ProposalOpen {
			return plan.ParseMarker(e.Body)
		}
	}
	return plan.Marker{}, false
}

// commitProposal writes the proposal's commit on branch, based on base.
func (p *Planner) commitProposal(ctx context.Context, base plumbing.Hash, branch string, pr *plan.Proposal, marker plan.Marker) (plumbing.Hash, error) {
	info, err := p.opts.Repo.CommitInfo(ctx, base)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	author := p.opts.Author
	author.When = info.Committer.When
	return p.opts.Repo.Commit(ctx, gitsource.CommitRequest{
		Parent: base, Branch: branch, Files: files(pr), Author: author,
		Message: pr.Title() + "\n\n" + summaries(pr.Plans) + "\n" + marker.String() + "\n",
	})
}

func proposalName(p gitsource.Proposal) string {
	if p.Number > 0 {
		return fmt.Sprintf("#%d", p.Number)
	}
	return p.Head
}

// upgradeable is the olmops/upgradeable status of a proposal: failure
// while the installed operator says Upgradeable=False, so branch
// protection can hold the merge; pending while an installed operator has
// not been heard from, since no answer is not a yes; success when it
// allows the upgrade or nothing is installed yet. It links to the
// proposal, where the body quotes the cluster's report.
func upgradeable(pr *plan.Proposal, st gitsource.Status, prop *gitsource.Proposal) gitsource.Status {
	out := gitsource.Status{Context: commitstatus.UpgradeableContext, State: gitsource.StatusSuccess, Description: "the installed operator does not object to an upgrade"}
	if prop != nil {
		out.TargetURL = prop.URL
	}
	if st.Description == "" {
		if pr.Main.Committed != nil {
			out.State, out.Description = gitsource.StatusPending, "waiting for the cluster to report on the installed operator"
		} else {
			out.Description = "nothing installed yet: no operator to object"
		}
		return out
	}
	r, err := commitstatus.Parse(st.Description)
	switch {
	case err != nil:
		out.State, out.Description = gitsource.StatusPending, "the cluster's report cannot be read: "+gitsource.TruncateDescription(st.Description)
	case r.NotUpgradeable != "":
		out.State = gitsource.StatusFailure
		out.Description = "Upgradeable=False: " + r.NotUpgradeable
	}
	out.Description = gitsource.TruncateDescription(out.Description)
	return out
}
