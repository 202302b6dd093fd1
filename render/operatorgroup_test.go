package render

import (
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/subscription"
)

// An OperatorGroup's objects are OLM's: its roles named by OLM's hash,
// aggregating OLM's per-API labels, and the group annotated with its
// APIs, sorted and once each, whatever order the plans gave them in.
func TestOperatorGroupObjects(t *testing.T) {
	// The hashes are computed apart from the code under test: base 62 of
	// SHA-224("team-a/og1/<suffix>") (OLM's role names) and FNV-64a of
	// the API key (OLM's aggregation labels).
	const (
		adminRole = "olm.og.og1.admin-1GEF0OLBv1yx0iMNKoXwZSxkoBGCLkqq9vStAi"
		editRole  = "olm.og.og1.edit-54uHZQ6Bqrh9SVe89OzWINCxqCZQWDgDf2BDLt"
		viewRole  = "olm.og.og1.view-baDtfUpdajRFTXTqDIf7WHB6NmBJnrz3dapDMp"
		widget    = "olm.opgroup.permissions/aggregate-to-d811b2bd16376996-"
		gadget    = "olm.opgroup.permissions/aggregate-to-9ec62b55fe92a213-"
	)
	sel := func(labels ...string) map[string]any {
		var out []any
		for _, l := range labels {
			out = append(out, map[string]any{"matchLabels": map[string]any{l: "true"}})
		}
		return map[string]any{"clusterRoleSelectors": out}
	}
	og := subscription.OperatorGroup{Name: "og1", Namespace: "team-a", TargetNamespaces: []string{"team-a", "team-b"}}
	tests := []struct {
		name        string
		og          subscription.OperatorGroup
		apis        []string
		provided    string
		targets     any
		aggregation []map[string]any // admin, edit, view; nil for none
	}{
		{"two APIs, given unsorted and twice", og, []string{"Widget.v1.demo.example.com", "Gadget.v1alpha1.demo.example.com", "Widget.v1.demo.example.com"},
			"Gadget.v1alpha1.demo.example.com,Widget.v1.demo.example.com", []any{"team-a", "team-b"},
			[]map[string]any{sel(gadget+"admin", widget+"admin"), sel(gadget+"edit", widget+"edit"), sel(gadget+"view", widget+"view")}},
		{"no API: roles that aggregate nothing", subscription.OperatorGroup{Name: "og1", Namespace: "team-a"}, nil, "", nil,
			[]map[string]any{nil, nil, nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			objs := OperatorGroupObjects(tt.og, tt.apis)
			if len(objs) != 4 {
				t.Fatalf("%d objects, want the group and 3 roles", len(objs))
			}
			g := objs[0]
			if g.GetKind() != "OperatorGroup" || g.GetAPIVersion() != "operators.coreos.com/v1" || g.GetNamespace() != "team-a" || g.GetName() != "og1" {
				t.Errorf("group = %s %s %s/%s", g.GetAPIVersion(), g.GetKind(), g.GetNamespace(), g.GetName())
			}
			if got := g.GetAnnotations()[ProvidedAPIsAnnotation]; got != tt.provided {
				t.Errorf("olm.providedAPIs = %q, want %q", got, tt.provided)
			}
			if got, _, _ := unstructured.NestedFieldNoCopy(g.Object, "spec", "targetNamespaces"); !reflect.DeepEqual(got, tt.targets) {
				t.Errorf("targetNamespaces = %v, want %v", got, tt.targets)
			}
			for i, name := range []string{adminRole, editRole, viewRole} {
				r := objs[i+1]
				if r.GetKind() != "ClusterRole" || r.GetName() != name {
					t.Errorf("role %d = %s %s, want ClusterRole %s", i, r.GetKind(), r.GetName(), name)
				}
				want := map[string]string{ManagedByLabel: ManagedBy, OperatorGroupLabel: "team-a",
					"olm.owner": "og1", "olm.owner.namespace": "team-a", "olm.owner.kind": "OperatorGroup"}
				if !reflect.DeepEqual(r.GetLabels(), want) {
					t.Errorf("%s labels = %v, want %v", name, r.GetLabels(), want)
				}
				got, _ := r.Object["aggregationRule"].(map[string]any)
				if !reflect.DeepEqual(got, tt.aggregation[i]) {
					t.Errorf("%s aggregationRule = %v, want %v", name, got, tt.aggregation[i])
				}
			}
			if again := OperatorGroupObjects(tt.og, tt.apis); !reflect.DeepEqual(again, objs) {
				t.Error("two calls with the same inputs differ")
			}
		})
	}
}

// A long group name is cut so that the role name fits in 253 characters,
// the hash kept whole.
func TestOperatorGroupRoleNameLimit(t *testing.T) {
	long := subscription.OperatorGroup{Name: strings.Repeat("g", 300), Namespace: "ns"}
	for _, r := range OperatorGroupObjects(long, nil)[1:] {
		if n := len(r.GetName()); n > 253 {
			t.Errorf("%d characters: %s", n, r.GetName())
		}
		if !strings.HasPrefix(r.GetName(), "olm.og.ggg") {
			t.Errorf("name %s", r.GetName())
		}
	}
}

// ProvidedAPIs counts served versions only, of CRDs only.
func TestProvidedAPIs(t *testing.T) {
	crd := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"spec": map[string]any{"group": "x.io", "names": map[string]any{"kind": "W"}, "versions": []any{
			map[string]any{"name": "v2", "served": true}, map[string]any{"name": "v1", "served": true}, map[string]any{"name": "v0", "served": false}}}}}
	other := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap"}}
	if got, want := ProvidedAPIs([]*unstructured.Unstructured{other, crd, crd}), []string{"W.v1.x.io", "W.v2.x.io"}; !reflect.DeepEqual(got, want) {
		t.Errorf("ProvidedAPIs = %v, want %v", got, want)
	}
}

// The group a plan was rendered for is read back from its Deployment.
func TestOperatorGroupOf(t *testing.T) {
	res := mustRender(t, synthetic(t, nil), Options{Namespace: "ops", OperatorGroup: "og1", TargetNamespaces: []string{"a", "b"}})
	got := OperatorGroupOf("ops", res.Objects)
	if want := (subscription.OperatorGroup{Name: "og1", Namespace: "ops", TargetNamespaces: []string{"a", "b"}}); !reflect.DeepEqual(got, want) {
		t.Errorf("OperatorGroupOf = %+v, want %+v", got, want)
	}
	if got := OperatorGroupOf("ops", nil); got.Name != DefaultOperatorGroup || got.TargetNamespaces != nil {
		t.Errorf("without a Deployment: %+v", got)
	}
}
