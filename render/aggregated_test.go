package render

import (
	"reflect"
	"testing"
)

// Each owned API gets OLM's four ClusterRoles, named and labelled as OLM
// names and labels them, so tenants' admin, edit and view roles reach it.
func TestAggregatedRoles(t *testing.T) {
	res := mustRender(t, synthetic(t, nil), Options{Namespace: "ops"})
	// FNV-64a of "Widget.v1.demo.example.com", as OLM's APIKeyToGVKHash
	// (computed apart from the code under test).
	const hash = "olm.opgroup.permissions/aggregate-to-d811b2bd16376996-"
	tests := []struct {
		name   string
		labels map[string]string
		rule   map[string]any
	}{
		{"widgets.demo.example.com-v1-admin", map[string]string{"rbac.authorization.k8s.io/aggregate-to-admin": "true", hash + "admin": "true"},
			map[string]any{"apiGroups": []any{"demo.example.com"}, "resources": []any{"widgets"}, "verbs": []any{"*"}}},
		{"widgets.demo.example.com-v1-edit", map[string]string{"rbac.authorization.k8s.io/aggregate-to-edit": "true", hash + "edit": "true"},
			map[string]any{"apiGroups": []any{"demo.example.com"}, "resources": []any{"widgets"}, "verbs": []any{"create", "update", "patch", "delete"}}},
		{"widgets.demo.example.com-v1-view", map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true", hash + "view": "true", ControllerAggregationLabel: "true"},
			map[string]any{"apiGroups": []any{"demo.example.com"}, "resources": []any{"widgets"}, "verbs": []any{"get", "list", "watch"}}},
		{"widgets.demo.example.com-v1-crdview", map[string]string{"rbac.authorization.k8s.io/aggregate-to-view": "true", hash + "view": "true"},
			map[string]any{"apiGroups": []any{"apiextensions.k8s.io"}, "resources": []any{"customresourcedefinitions"}, "resourceNames": []any{"widgets.demo.example.com"}, "verbs": []any{"get"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			role := mustFind(t, res.Objects, "ClusterRole", "", tt.name)
			labels := role.GetLabels()
			delete(labels, PackageLabel)
			delete(labels, ManagedByLabel)
			if !reflect.DeepEqual(labels, tt.labels) {
				t.Errorf("labels = %v, want %v", labels, tt.labels)
			}
			if rules := role.Object["rules"]; !reflect.DeepEqual(rules, []any{tt.rule}) {
				t.Errorf("rules = %v, want %v", rules, tt.rule)
			}
		})
	}
}
