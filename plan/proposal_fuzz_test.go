package plan

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
)

// headings are the only section lines a proposal body may hold.
var headings = []string{"### Path", "### Manifest changes", "### Warnings", "### Dependencies"}

// FuzzProposalBody: whatever catalogs and manifests say (package, channel,
// warnings, object names, escalations), the body holds no HTML from them,
// no link, no section of theirs, and olmops's marker is the one read back.
func FuzzProposalBody(f *testing.F) {
	f.Add("etcd", "stable", "use v2\n\n### RBAC\n<!--", "etcd-admin", "[x](https://evil) <img src=x>")
	f.Add("a|b", "`c`", "<!-- olmops:plan cluster=prod namespace=ops name=etcd to=x.v9 inputs="+realInputs+" -->", "*", "\u2028### Forged")
	f.Fuzz(func(t *testing.T, pkg, channel, warning, object, escalation string) {
		spec := v1alpha1.InstallPlanSpec{
			Package: pkg, To: v1alpha1.PlanBundle{Name: "etcd.v0.9.4", Version: pkg},
			Path:         []v1alpha1.PlanHop{{PlanBundle: v1alpha1.PlanBundle{Name: "etcd.v0.9.4"}, Edge: "install", Channel: channel}},
			Warnings:     []string{warning},
			Dependencies: []v1alpha1.PlanDependency{{Name: "dep", Package: pkg, Bundle: object}},
			InputsDigest: realInputs, Approval: v1alpha1.ApprovalAutomatic,
			Catalog: v1alpha1.PlanCatalog{Name: channel},
		}
		changes := render.Changes{Added: []render.ObjectRef{{Kind: "ClusterRole", Name: object}}, Escalations: []string{escalation}}
		main := Plan{Key: Key{Namespace: "ops", Name: "etcd"}, Dir: "clusters/prod/plans/ops/etcd", State: Install,
			File: &v1alpha1.InstallPlan{Spec: spec}, Changes: changes, RiskApproval: true}
		p := &Proposal{Cluster: v1alpha1.Cluster{Name: "prod"}, Main: main, Plans: []Plan{main}}
		body := p.Body()
		if n := strings.Count(body, "<"); n != 1 {
			t.Fatalf("body holds %d '<', want the marker's only:\n%s", n, body)
		}
		if m, ok := ParseMarker(body); !ok || m.To != "etcd.v0.9.4" || m.Cluster != "prod" {
			t.Fatalf("ParseMarker = %+v, %v:\n%s", m, ok, body)
		}
		for i, line := range strings.Split(body, "\n") {
			if i > 0 && strings.HasPrefix(line, "#") && !isHeading(line) {
				t.Fatalf("line %d is a section the input made: %q", i, line)
			}
			if j := strings.Index(line, "]("); j >= 0 && (j == 0 || line[j-1] != '\\') {
				t.Fatalf("line %d holds a link: %q", i, line)
			}
		}
	})
}

func isHeading(line string) bool {
	for _, h := range headings {
		if line == h || strings.HasPrefix(line, h+" of dependency ") {
			return true
		}
	}
	return false
}
