package plan

import (
	"strings"
	"testing"
	"testing/fstest"
)

// The bundle of issue 14: v2 retypes spec.size and makes spec.color
// required. A ClusterExtension refuses it unless it says enforcement
// None (OLM v1's preflight, Strict by default); a Subscription, OLM
// classic's, keeps the findings as warnings for the apply-time check.
func TestCRDUpgradeSafetyEnforcement(t *testing.T) {
	v1 := widgetCRD("Widget", "              size: {type: integer}")
	v2 := strings.Replace(widgetCRD("Widget", "              size: {type: string}\n              color: {type: string}"),
		"            type: object\n            properties:\n              size", "            type: object\n            required: [color]\n            properties:\n              size", 1)
	tests := []struct {
		name, intent string
		wantErr      bool
	}{
		{name: "ClusterExtension, default Strict", intent: clusterExtension("widget", "ops", "widget", ""), wantErr: true},
		{name: "ClusterExtension, Strict", intent: clusterExtension("widget", "ops", "widget", "Strict"), wantErr: true},
		{name: "ClusterExtension, None", intent: clusterExtension("widget", "ops", "widget", "None")},
		{name: "Subscription", intent: subscriptionOf("widget", "ops", "widget")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fixture{fs: fstest.MapFS{}}
			f.bundle("widget", "1.0.0", "", strings.Fields(allModes), v1)
			f.sub("widget", tt.intent)
			first := plan(t, f.input(t, nil))
			f.bundle("widget", "2.0.0", "1.0.0", strings.Fields(allModes), v2)
			res, err := Cluster(t.Context(), f.input(t, commit(t, first)), nil)
			if !tt.wantErr {
				if err != nil {
					t.Fatalf("Cluster: %v", err)
				}
				p := find(t, res, "ops/widget")
				if p.State != Upgrade || len(p.Changes.CRDs) != 1 || len(p.Changes.CRDs[0].Breaks) == 0 {
					t.Fatalf("state %s, CRD changes %+v; want an upgrade whose CRD findings are shown", p.State, p.Changes.CRDs)
				}
				return
			}
			for _, want := range []string{"clusters/c1/subscriptions/widget.yaml:1:", "widgets.demo.example.com", "v1.spec: color becomes required",
				"v1.spec.size: type changes from integer to string", "crdUpgradeSafety", "enforcement: None"} {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Errorf("Cluster error = %v; want it to contain %q", err, want)
				}
			}
		})
	}
}
