package render

import (
	"slices"
	"strings"
	"testing"
)

func TestRenderRBAC(t *testing.T) {
	// Two permission entries for one account join into one Role; a second
	// account gets its own.
	b := synthetic(t, func(csv map[string]any) {
		s := installSpecOf(csv)
		s["permissions"] = append(s["permissions"].([]any),
			map[string]any{"serviceAccountName": "demo-operator", "rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"secrets"}, "verbs": []any{"get"}}}},
			map[string]any{"serviceAccountName": "helper", "rules": []any{map[string]any{"apiGroups": []any{""}, "resources": []any{"pods"}, "verbs": []any{"list"}}}},
		)
	})
	roleRules := "- apiGroups:\n  - \"\"\n  resources:\n  - configmaps\n  verbs:\n  - get\n  - list\n- apiGroups:\n  - \"\"\n  resources:\n  - secrets\n  verbs:\n  - get"
	clusterRules := "- apiGroups:\n  - demo.example.com\n  resources:\n  - widgets\n  verbs:\n  - '*'"
	tests := []struct {
		name    string
		targets []string
		// want lists the RBAC objects apart from the OperatorCondition's;
		// the owned API's aggregated ClusterRoles are in every case.
		want []string
		// rules of ClusterRole demo-ops-demo-operator.
		clusterRules string
	}{
		{"own namespace", []string{"ops"}, []string{
			"ClusterRole /demo-ops-demo-operator",
			"ClusterRole /widgets.demo.example.com-v1-admin", "ClusterRole /widgets.demo.example.com-v1-crdview", "ClusterRole /widgets.demo.example.com-v1-edit", "ClusterRole /widgets.demo.example.com-v1-view",
			"ClusterRoleBinding /demo-ops-demo-operator",
			"Role ops/demo-demo-operator", "Role ops/demo-helper",
			"RoleBinding ops/demo-demo-operator", "RoleBinding ops/demo-helper",
		}, clusterRules},
		{"single namespace", []string{"team-a"}, []string{
			"ClusterRole /demo-ops-demo-operator",
			"ClusterRole /widgets.demo.example.com-v1-admin", "ClusterRole /widgets.demo.example.com-v1-crdview", "ClusterRole /widgets.demo.example.com-v1-edit", "ClusterRole /widgets.demo.example.com-v1-view",
			"ClusterRoleBinding /demo-ops-demo-operator",
			"Role ops/demo-demo-operator", "Role ops/demo-helper",
			"Role team-a/demo-demo-operator", "Role team-a/demo-helper",
			"RoleBinding ops/demo-demo-operator", "RoleBinding ops/demo-helper",
			"RoleBinding team-a/demo-demo-operator", "RoleBinding team-a/demo-helper",
		}, clusterRules},
		{"multi namespace", []string{"team-b", "ops", "team-a"}, []string{
			"ClusterRole /demo-ops-demo-operator",
			"ClusterRole /widgets.demo.example.com-v1-admin", "ClusterRole /widgets.demo.example.com-v1-crdview", "ClusterRole /widgets.demo.example.com-v1-edit", "ClusterRole /widgets.demo.example.com-v1-view",
			"ClusterRoleBinding /demo-ops-demo-operator",
			"Role ops/demo-demo-operator", "Role ops/demo-helper",
			"Role team-a/demo-demo-operator", "Role team-a/demo-helper",
			"Role team-b/demo-demo-operator", "Role team-b/demo-helper",
			"RoleBinding ops/demo-demo-operator", "RoleBinding ops/demo-helper",
			"RoleBinding team-a/demo-demo-operator", "RoleBinding team-a/demo-helper",
			"RoleBinding team-b/demo-demo-operator", "RoleBinding team-b/demo-helper",
		}, clusterRules},
		// AllNamespaces: permissions go cluster-wide, joined to the account's
		// clusterPermissions.
		{"all namespaces", nil, []string{
			"ClusterRole /demo-ops-demo-operator", "ClusterRole /demo-ops-helper",
			"ClusterRole /widgets.demo.example.com-v1-admin", "ClusterRole /widgets.demo.example.com-v1-crdview", "ClusterRole /widgets.demo.example.com-v1-edit", "ClusterRole /widgets.demo.example.com-v1-view",
			"ClusterRoleBinding /demo-ops-demo-operator", "ClusterRoleBinding /demo-ops-helper",
		}, clusterRules + "\n" + roleRules},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRender(t, b, Options{Namespace: "ops", TargetNamespaces: tt.targets})
			var got []string
			for _, o := range res.Objects {
				if strings.Contains(o.GetKind(), "Role") && !strings.HasSuffix(o.GetName(), "-operator-condition") {
					got = append(got, o.GetKind()+" "+o.GetNamespace()+"/"+o.GetName())
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("RBAC =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
			if got := field(t, mustFind(t, res.Objects, "ClusterRole", "", "demo-ops-demo-operator"), "rules"); got != tt.clusterRules {
				t.Errorf("ClusterRole rules =\n%s\nwant\n%s", got, tt.clusterRules)
			}
			for _, o := range res.Objects {
				switch o.GetKind() {
				case "Role":
					if o.GetName() == "demo-demo-operator" && field(t, o, "rules") != roleRules {
						t.Errorf("Role %s/%s rules =\n%s", o.GetNamespace(), o.GetName(), field(t, o, "rules"))
					}
				case "RoleBinding", "ClusterRoleBinding":
					checkBinding(t, o)
				}
			}
		})
	}
}

// checkBinding requires a binding to grant its own role to accounts of the
// install namespace.
func checkBinding(t *testing.T, o interface {
	GetKind() string
	GetName() string
	GetNamespace() string
	UnstructuredContent() map[string]any
}) {
	t.Helper()
	roleKind := strings.TrimSuffix(o.GetKind(), "Binding")
	ref := o.UnstructuredContent()["roleRef"].(map[string]any)
	if ref["kind"] != roleKind || ref["name"] != o.GetName() || ref["apiGroup"] != "rbac.authorization.k8s.io" {
		t.Errorf("%s %s roleRef = %v", o.GetKind(), o.GetName(), ref)
	}
	for _, s := range o.UnstructuredContent()["subjects"].([]any) {
		if m := s.(map[string]any); m["kind"] != "ServiceAccount" || m["namespace"] != "ops" {
			t.Errorf("%s %s/%s subject = %v", o.GetKind(), o.GetNamespace(), o.GetName(), m)
		}
	}
}

func TestRenderServiceAccounts(t *testing.T) {
	b := synthetic(t, func(csv map[string]any) {
		s := installSpecOf(csv)
		s["clusterPermissions"] = append(s["clusterPermissions"].([]any), map[string]any{"serviceAccountName": "cluster-only", "rules": []any{}})
		d := s["deployments"].([]any)[0].(map[string]any)
		d["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["serviceAccountName"] = "runner"
		s["permissions"] = append(s["permissions"].([]any), map[string]any{"serviceAccountName": "default", "rules": []any{}})
	})
	res := mustRender(t, b, Options{Namespace: "ops"})
	var got []string
	for _, o := range res.Objects {
		if o.GetKind() == "ServiceAccount" {
			got = append(got, o.GetNamespace()+"/"+o.GetName())
		}
	}
	want := []string{"ops/cluster-only", "ops/demo-operator", "ops/runner"}
	if !slices.Equal(got, want) {
		t.Errorf("service accounts = %v, want %v (default exists in every namespace)", got, want)
	}
}
