package plan

import (
	"strings"
	"testing"
	"testing/fstest"
)

// TestOneOwnerPerAPI is problem 2 of issue 14 at plan time: operators of
// different namespaces that share a CRD or an API, as OLM rules on them.
func TestOneOwnerPerAPI(t *testing.T) {
	widget := widgetCRD("Widget", "              size: {type: integer}")
	widgetV2 := widgetCRD("Widget", "              size: {type: integer}\n              color: {type: string}")
	own := []string{"OwnNamespace", "SingleNamespace", "MultiNamespace"}
	tests := []struct {
		name  string
		setup func(f *fixture)
		// want are substrings of the error; none means the cluster plans.
		want []string
	}{{
		name: "one package per tenant namespace, same CRD",
		setup: func(f *fixture) {
			f.bundle("widget", "1.0.0", "", own, widget)
			f.sub("a", subscriptionOf("widget", "team-a", "widget")+"---\n"+operatorGroup("og", "team-a", "team-a"))
			f.sub("b", subscriptionOf("widget", "team-b", "widget")+"---\n"+operatorGroup("og", "team-b", "team-b"))
		},
	}, {
		name: "two packages ship one CRD differently",
		setup: func(f *fixture) {
			f.bundle("widget", "1.0.0", "", own, widget)
			f.bundle("gizmo", "1.0.0", "", own, widgetV2)
			f.sub("a", subscriptionOf("widget", "team-a", "widget")+"---\n"+operatorGroup("og", "team-a", "team-a"))
			f.sub("b", subscriptionOf("gizmo", "team-b", "gizmo")+"---\n"+operatorGroup("og", "team-b", "team-b"))
		},
		want: []string{"clusters/c1/subscriptions/b.yaml:1: Subscription team-b/gizmo", "CRD widgets.demo.example.com is provided by team-a/widget (package widget) and by team-b/gizmo (package gizmo, clusters/c1/subscriptions/a.yaml:1",
			"spec.versions[v1].schema.openAPIV3Schema.properties.spec.properties"},
	}, {
		name: "intersecting OperatorGroups provide one API",
		setup: func(f *fixture) {
			f.bundle("widget", "1.0.0", "", own, widget)
			f.sub("a", subscriptionOf("widget", "team-a", "widget")+"---\n"+operatorGroup("og", "team-a", "team-a", "shared"))
			f.sub("b", subscriptionOf("widget", "team-b", "widget")+"---\n"+operatorGroup("og", "team-b", "shared", "team-b"))
		},
		want: []string{"clusters/c1/subscriptions/b.yaml:1: Subscription team-b/widget: InterOperatorGroupOwnerConflict: intersecting operatorgroups provide the same apis: Widget.v1.demo.example.com, by team-a/widget watching shared,team-a and by team-b/widget watching shared,team-b"},
	}, {
		name: "an operator for all namespaces and a tenant's provide one API",
		setup: func(f *fixture) {
			f.bundle("widget", "1.0.0", "", strings.Fields(allModes), widget)
			f.sub("a", clusterExtension("widget", "team-a", "widget", ""))
			f.sub("b", subscriptionOf("widget", "team-b", "widget")+"---\n"+operatorGroup("og", "team-b", "team-b"))
		},
		want: []string{"InterOperatorGroupOwnerConflict", "by team-a/widget watching all namespaces and by team-b/widget watching team-b"},
	}, {
		name: "one package twice for all namespaces",
		setup: func(f *fixture) {
			f.bundle("tool", "1.0.0", "", strings.Fields(allModes))
			f.sub("a", clusterExtension("tool-a", "team-a", "tool", ""))
			f.sub("b", clusterExtension("tool-b", "team-b", "tool", ""))
		},
		want: []string{"clusters/c1/subscriptions/b.yaml:1: ClusterExtension team-b/tool-b: package tool is installed for all namespaces twice, by team-a/tool-a and by team-b/tool-b"},
	}, {
		name: "one package for all namespaces, once",
		setup: func(f *fixture) {
			f.bundle("tool", "1.0.0", "", strings.Fields(allModes))
			f.sub("a", clusterExtension("tool-a", "team-a", "tool", ""))
			f.sub("b", subscriptionOf("tool", "team-b", "tool")+"---\n"+operatorGroup("og", "team-b", "team-b"))
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fixture{fs: fstest.MapFS{}}
			tt.setup(f)
			_, err := Cluster(t.Context(), f.input(t, nil), nil)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("Cluster: %v", err)
				}
				return
			}
			for _, w := range tt.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("Cluster error = %v\nwant it to contain %q", err, w)
				}
			}
		})
	}
}
