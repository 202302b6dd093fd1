package planner

import (
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/plan"
)

// TestSplitRiskApproval: a group of an Automatic subscription is proposed
// when the escalation policy holds any of its plans, a dependency's too.
func TestSplitRiskApproval(t *testing.T) {
	mk := func(name, group string, approval v1alpha1.Approval, risk bool) plan.Plan {
		return plan.Plan{Key: plan.Key{Namespace: "ns", Name: name}, Group: group, State: plan.Install, RiskApproval: risk,
			File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{Approval: approval}}}
	}
	auto, manual := v1alpha1.ApprovalAutomatic, v1alpha1.ApprovalManual
	tests := []struct {
		name       string
		plans      []plan.Plan
		wantManual int
	}{
		{"Automatic", []plan.Plan{mk("a", "a", auto, false)}, 0},
		{"Manual", []plan.Plan{mk("a", "a", manual, false)}, 1},
		{"Automatic held", []plan.Plan{mk("a", "a", auto, true)}, 1},
		{"dependency held", []plan.Plan{mk("a", "a", auto, false), mk("d", "a", auto, true)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, m := split(v1alpha1.Cluster{Name: "c"}, &plan.Result{Plans: tt.plans})
			if len(m) != tt.wantManual || len(a)+len(m) != 1 {
				t.Fatalf("split: %d automatic, %d manual; want %d manual", len(a), len(m), tt.wantManual)
			}
		})
	}
}
