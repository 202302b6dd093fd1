package planner

import (
	"errors"
	"fmt"
	"strings"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/resolver"
)

// Action is what a run did with a plan.
type Action string

// Actions.
const (
	// ActionNone: the committed plan is current.
	ActionNone Action = "none"
	// ActionCommitted: committed to the target branch (Automatic).
	ActionCommitted Action = "committed"
	// ActionProposed: a proposal was opened or updated (Manual).
	ActionProposed Action = "proposed"
	// ActionRejected: the target was rejected by closing its proposal,
	// so it was not proposed again.
	ActionRejected Action = "rejected"
	// ActionStale: --check found the committed plan stale or missing.
	ActionStale Action = "stale"
)

// Report is what a run did, per cluster.
type Report struct {
	Clusters []ClusterReport `json:"clusters"`
}

// ClusterReport is one cluster's outcome.
type ClusterReport struct {
	Name string `json:"name"`
	// Err is why the cluster was not planned; nothing was written for it.
	Err      error              `json:"-"`
	Error    string             `json:"error,omitempty"`
	Plans    []PlanReport       `json:"plans,omitempty"`
	Findings []resolver.Finding `json:"findings,omitempty"`
	// Holds are the subscriptions kept where they are until the clusters
	// this one follows have soaked their target.
	Holds []plan.Hold `json:"holds,omitempty"`
}

// PlanReport is one plan's outcome.
type PlanReport struct {
	plan.Key
	State  plan.State `json:"state"`
	Action Action     `json:"action"`
	// To is the plan's target bundle.
	To string `json:"to,omitempty"`
	// Title is the change in one line.
	Title string `json:"title,omitempty"`
	// Commit is the commit carrying the change (the proposal's head for
	// a proposal).
	Commit string `json:"commit,omitempty"`
	// Branch and Proposal say where a Manual plan waits.
	Branch   string              `json:"branch,omitempty"`
	Proposal *gitsource.Proposal `json:"proposal,omitempty"`
	// Note explains an action, such as the rejected proposal.
	Note string `json:"note,omitempty"`
	// Escalations are the grants the change adds to the cluster (see
	// render.Escalations).
	Escalations []string `json:"escalations,omitempty"`
	// RiskApproval: the subscription is Automatic, but the escalation
	// policy has the change proposed for approval.
	RiskApproval bool `json:"riskApproval,omitempty"`
}

// Err joins the errors of the clusters that were not planned.
func (r *Report) Err() error {
	var errs []error
	for _, c := range r.Clusters {
		if c.Err != nil {
			errs = append(errs, c.Err)
		}
	}
	return errors.Join(errs...)
}

// Stale counts the plans --check found stale or missing.
func (r *Report) Stale() int {
	n := 0
	for _, c := range r.Clusters {
		for _, p := range c.Plans {
			if p.Action == ActionStale {
				n++
			}
		}
	}
	return n
}

// planReports reports every plan of a proposal with one action.
func (p *Planner) planReports(pr *plan.Proposal, a Action, commit string, prop *gitsource.Proposal) []PlanReport {
	var out []PlanReport
	for _, pl := range pr.Plans {
		r := PlanReport{Key: pl.Key, State: pl.State, Action: a, To: pl.File.Spec.To.Name, Title: pr.Title(), Commit: commit, Proposal: prop,
			Escalations: pl.Changes.Escalations, RiskApproval: pl.RiskApproval}
		if pr.Manual() && !p.opts.Check {
			r.Branch = pr.Branch()
		}
		switch {
		case len(pl.Waits) > 0:
			r.Note = strings.Join(pl.Waits, "; ")
		case pl.Key != pr.Main.Key:
			r.Note = fmt.Sprintf("dependency of %s", pr.Main.Name)
		}
		out = append(out, r)
	}
	return out
}

// noteAll sets note on every report, after what a rider's report already
// says: why it waits with the proposal must not be lost.
func noteAll(reports []PlanReport, note string) {
	for i := range reports {
		if reports[i].Note != "" && !strings.HasPrefix(reports[i].Note, "dependency of ") {
			reports[i].Note += "; " + note
			continue
		}
		reports[i].Note = note
	}
}
