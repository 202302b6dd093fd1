package apply

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/render"
)

// Objects that leave the plan are deleted, except CRDs, which stay in the
// cluster and in the inventory until a request allows pruning them.
func TestPrune(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	a := testApplier(env.Client)
	crd, widget := widgetObjects(ns)
	full := etcdHop(t, ns, "etcdoperator.v0.9.4")
	full.Objects = append(full.Objects, crd, widget)
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{full}}
	res, err := a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}

	// The operator-condition RBAC and the widgets (CRD and resource) leave.
	smaller := without(without(full, "Role", "etcd-operator-condition"), "RoleBinding", "etcd-operator-condition")
	smaller = without(without(smaller, "CustomResourceDefinition", crd.GetName()), "Widget", "w1")
	req.Hops, req.Installed, req.Inventory = []Hop{smaller}, res.Installed, res.Inventory
	res, err = a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pruned != 3 {
		t.Errorf("pruned %d objects, want 3 (Role, RoleBinding, Widget)", res.Pruned)
	}
	for _, o := range []*unstructured.Unstructured{roleObj(ns), roleBindingObj(ns), widget} {
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(o), o.DeepCopy()); !apierrors.IsNotFound(err) {
			t.Errorf("%s still there after prune: %v", entryOf(o), err)
		}
		if res.Inventory.Has(entryOf(o)) {
			t.Errorf("inventory still holds %s", entryOf(o))
		}
	}
	get(t, env.Client, crdGVK, "", crd.GetName())
	if !res.Inventory.Has(entryOf(crd)) {
		t.Errorf("the kept CRD left the inventory, so it can never be pruned: %v", res.Inventory)
	}

	req.Inventory, req.PruneCRDs = res.Inventory, true
	res, err = a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Pruned != 1 || res.Inventory.Has(entryOf(crd)) {
		t.Errorf("PruneCRDs: pruned %d, inventory %v", res.Pruned, res.Inventory)
	}
	// The API server finishes a CRD's deletion itself, once its custom
	// resources are gone.
	err = wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		err := env.Client.Get(ctx, client.ObjectKeyFromObject(crd), crd.DeepCopy())
		return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
	})
	if err != nil {
		t.Errorf("CRD not deleted with PruneCRDs: %v", err)
	}
}

// An object someone took over (label removed) or deleted is left alone and
// leaves the inventory.
func TestPruneLeavesForeignObjects(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	a := testApplier(env.Client)
	full := etcdHop(t, ns, "etcdoperator.v0.9.4")
	res, err := a.Apply(t.Context(), Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{full}})
	if err != nil {
		t.Fatal(err)
	}
	role := get(t, env.Client, roleObj(ns).GroupVersionKind(), ns, "etcd-operator-condition")
	labels := role.GetLabels()
	delete(labels, render.ManagedByLabel)
	role.SetLabels(labels)
	if err := env.Client.Update(t.Context(), role); err != nil {
		t.Fatal(err)
	}
	if err := env.Client.Delete(t.Context(), roleBindingObj(ns)); err != nil {
		t.Fatal(err)
	}
	smaller := without(without(full, "Role", "etcd-operator-condition"), "RoleBinding", "etcd-operator-condition")
	res, err = a.Apply(t.Context(), Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{smaller}, Installed: res.Installed, Inventory: res.Inventory})
	if err != nil {
		t.Fatal(err)
	}
	if res.Pruned != 0 || res.Inventory.Has(entryOf(role)) || res.Inventory.Has(entryOf(roleBindingObj(ns))) {
		t.Errorf("pruned %d, inventory %v", res.Pruned, res.Inventory)
	}
	get(t, env.Client, role.GroupVersionKind(), ns, role.GetName())
}

func roleObj(ns string) *unstructured.Unstructured {
	return rbacObj("Role", ns, "etcd-operator-condition")
}

func roleBindingObj(ns string) *unstructured.Unstructured {
	return rbacObj("RoleBinding", ns, "etcd-operator-condition")
}

func rbacObj(kind, ns, name string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{}
	o.SetAPIVersion("rbac.authorization.k8s.io/v1")
	o.SetKind(kind)
	o.SetNamespace(ns)
	o.SetName(name)
	return o
}

// With KeepRemoved (spec.prune: false) objects that leave the plan stay
// in the cluster and leave the inventory: olmops lets go of them.
func TestKeepRemoved(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	a := testApplier(env.Client)
	full := etcdHop(t, ns, "etcdoperator.v0.9.4")
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{full}, KeepRemoved: true}
	res, err := a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Hops = []Hop{without(full, "Role", "etcd-operator-condition")}
	req.Installed, req.Inventory = res.Installed, res.Inventory
	if res, err = a.Apply(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if res.Pruned != 0 {
		t.Errorf("pruned %d objects with KeepRemoved", res.Pruned)
	}
	get(t, env.Client, roleObj(ns).GroupVersionKind(), ns, "etcd-operator-condition")
	if res.Inventory.Has(entryOf(roleObj(ns))) {
		t.Errorf("the kept Role is still in the inventory: %v", res.Inventory)
	}
}
