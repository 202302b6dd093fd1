package plan

import (
	"cmp"
	"fmt"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
)

// EscalationDenied is the error of a plan whose subscription is Automatic
// and whose manifests grant what olmops.yaml's escalation policy denies.
// The cluster's error names the subscription's file and line.
type EscalationDenied struct {
	// Escalations are the grants the change adds, as render.Escalations
	// words them.
	Escalations []string
}

func (e *EscalationDenied) Error() string {
	return fmt.Sprintf("olmops.yaml policy.escalations.onAutomatic is %s, and this Automatic change grants: %s (make the subscription Manual to review it in a proposal)",
		v1alpha1.EscalationDeny, strings.Join(e.Escalations, "; "))
}

// gate applies the escalation policy to a plan. Only a change that would
// reach the cluster without a person's approval is gated: the plan of an
// Automatic subscription whose manifests grant more than the committed
// ones. Allow (the default) leaves it as it is.
func (pl *planner) gate(p *Plan) error {
	if p.State == UpToDate || p.State == Remove || p.File.Spec.Approval == v1alpha1.ApprovalManual || len(p.Changes.Escalations) == 0 {
		return nil
	}
	switch cmp.Or(pl.in.Policy.Escalations.OnAutomatic, v1alpha1.EscalationAllow) {
	case v1alpha1.EscalationManual:
		p.RiskApproval = true
	case v1alpha1.EscalationDeny:
		return &EscalationDenied{Escalations: p.Changes.Escalations}
	}
	return nil
}

// Manual tells whether the proposal waits for a person's approval: its
// subscription is Manual, or the escalation policy holds one of its plans
// (risk-based approval).
func (p *Proposal) Manual() bool {
	if p.Main.File != nil && p.Main.File.Spec.Approval == v1alpha1.ApprovalManual {
		return true
	}
	for _, pl := range p.Plans {
		if pl.RiskApproval {
			return true
		}
	}
	return p.Main.RiskApproval
}
