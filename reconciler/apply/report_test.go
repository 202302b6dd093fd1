package apply

import (
	"testing"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
)

func TestReport(t *testing.T) {
	tests := []struct {
		name  string
		res   Result
		want  string
		state gitsource.StatusState
	}{
		{"healthy", Result{Phase: commitstatus.Installed, Hop: 2, Hops: 2, Bundle: "etcd.v0.9.4", Installed: "etcd.v0.9.4", Healthy: true},
			"etcd.v0.9.4 installed · healthy", gitsource.StatusSuccess},
		{"healthy, not upgradeable", Result{Phase: commitstatus.Installed, Hop: 1, Hops: 1, Bundle: "etcd.v0.9.4", Installed: "etcd.v0.9.4", Healthy: true, NotUpgradeable: "migration running"},
			"etcd.v0.9.4 installed · healthy · Upgradeable=False: migration running", gitsource.StatusSuccess},
		{"unhealthy at hop 1 of 2", Result{Phase: commitstatus.Installed, Hop: 1, Hops: 2, Bundle: "etcd.v0.9.2", Installed: "etcd.v0.9.2", Reason: "Deployment etcd-operator: 0/1 available"},
			"etcd.v0.9.2 installed · unhealthy: Deployment etcd-operator: 0/1 available", gitsource.StatusFailure},
		{"held", Result{Phase: commitstatus.Held, Hop: 1, Hops: 1, Bundle: "etcd.v0.9.4", Installed: "etcd.v0.9.2", NotUpgradeable: "backup in progress"},
			"held at etcd.v0.9.2 · Upgradeable=False: backup in progress", gitsource.StatusPending},
		{"failed", Result{Phase: commitstatus.Failed, Hop: 2, Hops: 2, Bundle: "etcd.v0.9.4", Installed: "etcd.v0.9.2", Reason: `CustomResourceDefinition "x" is invalid`},
			`etcd.v0.9.4 failed: CustomResourceDefinition "x" is invalid`, gitsource.StatusFailure},
		{"interrupted, one hop", Result{Phase: commitstatus.Applying, Hop: 1, Hops: 1, Bundle: "etcd.v0.9.4"},
			"applying etcd.v0.9.4", gitsource.StatusPending},
		{"interrupted, hop 2 of 3", Result{Phase: commitstatus.Applying, Hop: 2, Hops: 3, Bundle: "etcd.v0.9.4"},
			"applying etcd.v0.9.4 (hop 2/3)", gitsource.StatusPending},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := tt.res.Report()
			if got := rep.Description(); got != tt.want || rep.State() != tt.state {
				t.Errorf("Report = %q (%s), want %q (%s)", got, rep.State(), tt.want, tt.state)
			}
			// The planner must read back what the reconciler posts.
			back, err := commitstatus.Parse(rep.Description())
			if err != nil || back.Phase != rep.Phase || back.Bundle != rep.Bundle || back.NotUpgradeable != rep.NotUpgradeable {
				t.Errorf("Parse(%q) = %+v, %v", rep.Description(), back, err)
			}
		})
	}
}
