package render

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// Escalations reads manifests from catalogs and overlays, whose shape no
// one checked (a rules field that is a string, a pod spec that is a list):
// it must not panic, and what after grants is never an escalation against
// itself, so a controller comparing a plan with its own last hop holds
// nothing.
func FuzzEscalations(f *testing.F) {
	f.Add("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: all}\nrules: [{apiGroups: ['*'], resources: ['*'], verbs: ['*']}]\n", "")
	f.Add("kind: ClusterRoleBinding\nmetadata: {name: b}\nroleRef: {kind: ClusterRole, name: cluster-admin}\n", "kind: Role\nrules: oops\n")
	f.Add("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: d}\nspec: {template: {spec: {hostPID: true, volumes: [{hostPath: {path: /}}], containers: [{securityContext: {privileged: true, capabilities: {add: [ALL]}}}]}}}\n",
		"kind: Deployment\nspec: {template: {spec: [1]}}\n")
	f.Add("kind: ValidatingWebhookConfiguration\nmetadata: {name: w}\n", "kind: APIService\nmetadata: {name: v1.x}\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		var after []*unstructured.Unstructured
		for _, doc := range []string{a, b} {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil || u.Object == nil {
				continue
			}
			after = append(after, u)
		}
		got := Escalations(nil, after)
		if !slices.IsSorted(got) {
			t.Fatalf("Escalations not sorted: %q", got)
		}
		if again := Escalations(after, after); len(again) != 0 {
			t.Fatalf("objects escalate against themselves: %q", again)
		}
	})
}
