package apply

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/render"
)

// Two plans that share a CRD render the same per-API ClusterRoles: an
// upgrade of one that drops them, and the removal of one, leave them to
// the other (Shared). The last plan holding them deletes them.
func TestSharedObjectsOutlivePrune(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	ctx := t.Context()
	a := testApplier(env.Client)
	roleGVK := schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}
	role := func() *unstructured.Unstructured {
		o := &unstructured.Unstructured{Object: map[string]any{"rules": []any{map[string]any{
			"apiGroups": []any{"x.io"}, "resources": []any{"widgets"}, "verbs": []any{"get"}}}}}
		o.SetGroupVersionKind(roleGVK)
		o.SetName(ns + "-widgets-view")
		o.SetLabels(map[string]string{render.ManagedByLabel: render.ManagedBy})
		return o
	}
	cm := func(name string) *unstructured.Unstructured {
		o := &unstructured.Unstructured{Object: map[string]any{"data": map[string]any{"k": "v"}}}
		o.SetAPIVersion("v1")
		o.SetKind("ConfigMap")
		o.SetNamespace(ns)
		o.SetName(name)
		o.SetLabels(map[string]string{render.ManagedByLabel: render.ManagedBy})
		return o
	}
	shared := Inventory{{Group: roleGVK.Group, Version: roleGVK.Version, Kind: roleGVK.Kind, Name: ns + "-widgets-view"}}
	exists := func() bool {
		o := &unstructured.Unstructured{}
		o.SetGroupVersionKind(roleGVK)
		err := env.Client.Get(ctx, client.ObjectKey{Name: ns + "-widgets-view"}, o)
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	resA, err := a.Apply(ctx, Request{Namespace: ns, Subscription: "a", Hops: []Hop{{Bundle: "a.v1", Objects: []*unstructured.Unstructured{role(), cm("a")}}}})
	if err != nil {
		t.Fatal(err)
	}
	resB, err := a.Apply(ctx, Request{Namespace: ns, Subscription: "b", Hops: []Hop{{Bundle: "b.v1", Objects: []*unstructured.Unstructured{role(), cm("b")}}}})
	if err != nil {
		t.Fatal(err)
	}

	// a's upgrade drops the role; b still contains it.
	resA, err = a.Apply(ctx, Request{Namespace: ns, Subscription: "a", Installed: "a.v1", Inventory: resA.Inventory, Shared: shared,
		Hops: []Hop{{Bundle: "a.v1", Objects: []*unstructured.Unstructured{role(), cm("a")}}, {Bundle: "a.v2", Objects: []*unstructured.Unstructured{cm("a")}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !exists() {
		t.Fatal("a's upgrade pruned the role b still contains")
	}
	resA.Inventory = append(resA.Inventory, shared...) // as if a still held it
	gone, err := a.Remove(ctx, RemoveRequest{Namespace: ns, Subscription: "a", Inventory: normalize(resA.Inventory), Shared: shared})
	if err != nil {
		t.Fatal(err)
	}
	if !exists() {
		t.Fatal("removing a deleted the role b still contains")
	}
	if gone.Inventory.Has(shared[0]) {
		t.Errorf("the role stays in removed a's inventory: %v", gone.Inventory)
	}
	if _, err := a.Remove(ctx, RemoveRequest{Namespace: ns, Subscription: "b", Inventory: resB.Inventory}); err != nil {
		t.Fatal(err)
	}
	if exists() {
		t.Error("the role outlived the last plan containing it")
	}
}
