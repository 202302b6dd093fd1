package plan

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A ClusterExtension's plan names its service account, which the
// controller impersonates; a Subscription's names none, and its file
// says nothing of one.
func TestPlanRecordsServiceAccount(t *testing.T) {
	tests := []struct {
		name, intent, want string
	}{
		{"ClusterExtension", clusterExtension("widget", "ops", "widget", ""), "installer"},
		{"Subscription", subscriptionOf("widget", "ops", "widget"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fixture{fs: fstest.MapFS{}}
			f.bundle("widget", "1.0.0", "", strings.Fields(allModes), widgetCRD("Widget", "              size: {type: integer}"))
			f.sub("widget", tt.intent)
			p := find(t, plan(t, f.input(t, nil)), "ops/widget")
			if got := p.File.Spec.Subscription.ServiceAccount; got != tt.want {
				t.Errorf("spec.subscription.serviceAccount = %q, want %q", got, tt.want)
			}
		})
	}
}
