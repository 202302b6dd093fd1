package reconciler

import (
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/reconciler/apply"
)

// Each plan learns the served versions of the other plans' target CRDs,
// not its own, not earlier hops', and not those of plans that failed to
// load.
func TestShareCRDs(t *testing.T) {
	crd := func(name string, served ...string) *unstructured.Unstructured {
		var vs []any
		for _, v := range served {
			vs = append(vs, map[string]any{"name": v, "served": true})
		}
		vs = append(vs, map[string]any{"name": "v0", "served": false})
		return &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
			"metadata": map[string]any{"name": name}, "spec": map[string]any{"versions": vs}}}
	}
	hop := func(objs ...*unstructured.Unstructured) apply.Hop { return apply.Hop{Objects: objs} }
	a := &loadedPlan{namespace: "team-a", name: "w", req: apply.Request{Hops: []apply.Hop{hop(crd("widgets.x", "v1"))}}}
	b := &loadedPlan{namespace: "team-b", name: "w", req: apply.Request{Hops: []apply.Hop{hop(crd("widgets.x", "v1alpha1")), hop(crd("widgets.x", "v1", "v2"), crd("gadgets.x", "v1"))}}}
	broken := &loadedPlan{namespace: "team-c", name: "w", err: errBroken, req: apply.Request{Hops: []apply.Hop{hop(crd("widgets.x", "v3"))}}}
	shareCRDs([]*loadedPlan{a, b, broken})
	want := map[string]map[string][]string{"widgets.x": {"v1": {"team-b/w"}, "v2": {"team-b/w"}}, "gadgets.x": {"v1": {"team-b/w"}}}
	if !reflect.DeepEqual(a.req.SharedCRDs, want) {
		t.Errorf("team-a/w shares %v, want %v", a.req.SharedCRDs, want)
	}
	if want := map[string]map[string][]string{"widgets.x": {"v1": {"team-a/w"}}}; !reflect.DeepEqual(b.req.SharedCRDs, want) {
		t.Errorf("team-b/w shares %v, want %v", b.req.SharedCRDs, want)
	}
}

var errBroken = errors.New("does not load")

// A plan's shared entries are those of its inventory another loaded plan's
// target contains; for a removal, any loaded plan counts.
func TestContainersShared(t *testing.T) {
	role := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": map[string]any{"name": "widgets-view"}}}
	own := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "a", "namespace": "team-a"}}}
	a := &loadedPlan{namespace: "team-a", name: "a", req: apply.Request{Hops: []apply.Hop{{Objects: []*unstructured.Unstructured{own}}}}}
	b := &loadedPlan{namespace: "team-b", name: "b", req: apply.Request{Hops: []apply.Hop{{Objects: []*unstructured.Unstructured{role}}}}}
	broken := &loadedPlan{namespace: "team-c", name: "c", err: errBroken, req: apply.Request{Hops: []apply.Hop{{Objects: []*unstructured.Unstructured{own}}}}}
	c := containersOf([]*loadedPlan{a, b, broken})
	inv := apply.Inventory{
		{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole", Name: "widgets-view"},
		{Version: "v1", Kind: "ConfigMap", Namespace: "team-a", Name: "a"},
	}
	if got := c.shared("team-a/a", inv); !reflect.DeepEqual(got, inv[:1]) {
		t.Errorf("a shares %v, want the role b contains", got)
	}
	if got := c.shared("team-b/b", inv); !reflect.DeepEqual(got, inv[1:]) {
		t.Errorf("b shares %v, want a's ConfigMap", got)
	}
	if got := c.shared("", inv); !reflect.DeepEqual(got, inv) {
		t.Errorf("a removal shares %v, want all", got)
	}
}
