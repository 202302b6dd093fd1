package render

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func objs(t *testing.T, docs ...string) []*unstructured.Unstructured {
	t.Helper()
	var out []*unstructured.Unstructured
	for _, d := range docs {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(d), &u.Object); err != nil {
			t.Fatal(err)
		}
		out = append(out, u)
	}
	return out
}

// TestEscalations is the attack of issue 16: a bundle or an overlay that
// adds cluster-wide wildcards, a cluster-admin binding and a privileged
// hostPath DaemonSet must say so in the proposal, not only as "changed".
func TestEscalations(t *testing.T) {
	const (
		wildcard = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: all}\nrules: [{apiGroups: ['*'], resources: ['*'], verbs: ['*']}]\n"
		binder   = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: b, namespace: ops}\nrules: [{apiGroups: [rbac.authorization.k8s.io], resources: [rolebindings], verbs: [bind, get]}]\n"
		admin    = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata: {name: root}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}\nsubjects: [{kind: ServiceAccount, name: op, namespace: ops}]\n"
		ds       = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: node, namespace: ops}\nspec:\n  template:\n    spec:\n      hostPID: true\n      volumes: [{name: root, hostPath: {path: /}}]\n      containers: [{name: c, securityContext: {privileged: true}}]\n"
		hook     = "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata: {name: m}\n"
		plain    = "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r, namespace: ops}\nrules: [{apiGroups: [''], resources: [configmaps], verbs: [get]}]\n"
	)
	tests := []struct {
		name          string
		before, after []string
		want          []string
	}{
		{name: "nothing risky", after: []string{plain}},
		{name: "everything at once", after: []string{wildcard, binder, admin, ds, hook}, want: []string{
			"ClusterRole all has a wildcard rule (apiGroups [*], resources [*], verbs [*])",
			"ClusterRoleBinding root binds the built-in role cluster-admin",
			"DaemonSet ops/node mounts the host path /",
			"DaemonSet ops/node runs container c privileged",
			"DaemonSet ops/node uses hostPID",
			"MutatingWebhookConfiguration m intercepts API requests",
			"Role ops/b may bind (resources [rolebindings])",
		}},
		{name: "already there before", before: []string{admin, ds}, after: []string{admin, ds}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Escalations(objs(t, tt.before...), objs(t, tt.after...))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Escalations =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
