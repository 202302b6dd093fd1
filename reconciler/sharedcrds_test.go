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
