package plan

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmops/olmops/api/v1alpha1"
)

// adminBinding is an overlay that binds the operator's service account to
// cluster-admin: the escalation a pull request could slip in.
const adminBinding = `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata:
  name: etcd-admin
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
subjects:
  - {kind: ServiceAccount, name: etcd-operator, namespace: etcd-system}
`

func TestEscalationPolicy(t *testing.T) {
	fsys := example(t)
	settled := map[string]map[Key]*Committed{"staging": settle(t, fsys, "staging"), "prod-east": settle(t, fsys, "prod-east")}
	escalated := example(t)
	for _, c := range []string{"staging", "prod-east"} {
		dir := "clusters/" + c + "/overlays/etcd/"
		escalated[dir+"kustomization.yaml"] = &fstest.MapFile{Data: []byte("resources: [binding.yaml]\n")}
		escalated[dir+"binding.yaml"] = &fstest.MapFile{Data: []byte(adminBinding)}
	}
	benign := example(t)
	benign["clusters/staging/overlays/etcd/kustomization.yaml"] = &fstest.MapFile{Data: []byte("commonLabels: {team: storage}\n")}
	tests := []struct {
		name     string
		fsys     fstest.MapFS
		cluster  string
		policy   v1alpha1.EscalationAction
		wantRisk bool
		wantErr  string
	}{
		{name: "default allows", fsys: escalated, cluster: "staging"},
		{name: "Allow commits", fsys: escalated, cluster: "staging", policy: v1alpha1.EscalationAllow},
		{name: "Manual proposes", fsys: escalated, cluster: "staging", policy: v1alpha1.EscalationManual, wantRisk: true},
		{name: "Deny refuses the cluster", fsys: escalated, cluster: "staging", policy: v1alpha1.EscalationDeny,
			wantErr: "clusters/staging/subscriptions/etcd.yaml:2: ClusterExtension etcd-system/etcd: olmops.yaml policy.escalations.onAutomatic is Deny, and this Automatic change grants: ClusterRoleBinding etcd-admin binds the built-in role cluster-admin"},
		{name: "a change without escalations is not held", fsys: benign, cluster: "staging", policy: v1alpha1.EscalationDeny},
		{name: "a Manual subscription is proposed anyway", fsys: escalated, cluster: "prod-east", policy: v1alpha1.EscalationDeny},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := input(t, tt.fsys, tt.cluster, settled[tt.cluster])
			in.Policy.Escalations.OnAutomatic = tt.policy
			res, err := Cluster(t.Context(), in, nil)
			if tt.wantErr != "" {
				var denied *EscalationDenied
				if !errors.As(err, &denied) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			p := find(t, res, "etcd-system/etcd")
			if p.State != Refresh || p.RiskApproval != tt.wantRisk {
				t.Fatalf("state %s, risk approval %v, want %v; escalations %q", p.State, p.RiskApproval, tt.wantRisk, p.Changes.Escalations)
			}
			pr := &Proposal{Cluster: in.Cluster, Main: p, Plans: []Plan{p}}
			manual := p.File.Spec.Approval == v1alpha1.ApprovalManual || tt.wantRisk
			if pr.Manual() != manual {
				t.Errorf("Manual() = %v, want %v", pr.Manual(), manual)
			}
			if body := pr.Body(); tt.wantRisk && !strings.Contains(body, "Manual, risk-based") {
				t.Errorf("body does not say why it waits:\n%s", body)
			}
		})
	}
}
