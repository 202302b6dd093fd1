package apply

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/olmops/olmops/render"
)

// Remove deletes a subscription's objects by prune's rules: its
// namespace and an object someone took over stay, and CRDs stay, in the
// cluster and the inventory, unless PruneCRDs.
func TestRemove(t *testing.T) {
	tests := []struct {
		name      string
		pruneCRDs bool
	}{
		{"keeps CRDs", false},
		{"PruneCRDs", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := kube.Env(t)
			ns := env.NewNamespace(t)
			rollout(t, env, ns)
			a := testApplier(env.Client)
			// The etcd CRD is shared by every test of the control plane:
			// only a CRD of this test's own may go.
			hop := without(etcdHop(t, ns, "etcdoperator.v0.9.4"), "CustomResourceDefinition", etcdCRD)
			crd, widget := widgetObjects(ns)
			namespace := &unstructured.Unstructured{}
			namespace.SetGroupVersionKind(nsGVK)
			namespace.SetName(ns)
			hop.Objects = append(hop.Objects, crd, widget, namespace)
			res, err := a.Apply(t.Context(), Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{hop}})
			if err != nil {
				t.Fatal(err)
			}
			sa := get(t, env.Client, saGVK, ns, "etcd-operator")
			labels := sa.GetLabels()
			delete(labels, render.ManagedByLabel)
			sa.SetLabels(labels)
			if err := env.Client.Update(t.Context(), sa); err != nil {
				t.Fatal(err)
			}

			got, err := a.Remove(t.Context(), RemoveRequest{Cluster: "test", Namespace: ns, Subscription: "etcd", Inventory: res.Inventory, PruneCRDs: tt.pruneCRDs})
			if err != nil {
				t.Fatal(err)
			}
			kept := []*unstructured.Unstructured{namespace, sa}
			if !tt.pruneCRDs {
				kept = append(kept, crd)
			}
			for _, o := range hop.Objects {
				if slices.ContainsFunc(kept, func(k *unstructured.Unstructured) bool { return entryOf(k).key() == entryOf(o).key() }) {
					if live := get(t, env.Client, o.GroupVersionKind(), o.GetNamespace(), o.GetName()); live.GetDeletionTimestamp() != nil {
						t.Errorf("%s is being deleted", entryOf(o))
					}
					continue
				}
				// The API server finishes a CRD's deletion itself.
				err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
					err := env.Client.Get(ctx, client.ObjectKeyFromObject(o), o.DeepCopy())
					return apierrors.IsNotFound(err), client.IgnoreNotFound(err)
				})
				if err != nil {
					t.Errorf("%s not deleted: %v", entryOf(o), err)
				}
			}
			var want Inventory
			if !tt.pruneCRDs {
				want = Inventory{entryOf(crd)}
			}
			if len(got.Inventory) != len(want) || (len(want) == 1 && !got.Inventory.Has(want[0])) {
				t.Errorf("inventory %v, want %v", got.Inventory, want)
			}
			if wantPruned := len(hop.Objects) - len(kept); got.Pruned != wantPruned || got.Phase != "" || got.Installed != "" {
				t.Errorf("result %+v, want %d pruned and no phase", got, wantPruned)
			}
		})
	}
}

// An object whose deletion fails stays in the inventory for the next
// call, and the others go.
func TestRemoveKeepsWhatFailed(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	hop := without(etcdHop(t, ns, "etcdoperator.v0.9.4"), "CustomResourceDefinition", etcdCRD)
	res, err := testApplier(env.Client).Apply(t.Context(), Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{hop}})
	if err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	ww, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	c := interceptor.NewClient(ww, interceptor.Funcs{
		Delete: func(ctx context.Context, c client.WithWatch, obj client.Object, opts ...client.DeleteOption) error {
			if obj.GetObjectKind().GroupVersionKind().Kind == "Deployment" {
				return refused
			}
			return c.Delete(ctx, obj, opts...)
		},
	})
	req := RemoveRequest{Namespace: ns, Subscription: "etcd", Inventory: res.Inventory}
	got, err := testApplier(c).Remove(t.Context(), req)
	if !errors.Is(err, refused) || got == nil {
		t.Fatalf("Remove = %v, %v; want a result and the refusal", got, err)
	}
	d := deploymentOf(hop)
	d.SetNamespace(ns)
	if len(got.Inventory) != 1 || !got.Inventory.Has(entryOf(d)) || got.Pruned != len(hop.Objects)-1 {
		t.Errorf("pruned %d, inventory %v; want all but the Deployment pruned", got.Pruned, got.Inventory)
	}
	req.Inventory = got.Inventory
	if got, err = testApplier(env.Client).Remove(t.Context(), req); err != nil || len(got.Inventory) != 0 || got.Pruned != 1 {
		t.Errorf("second Remove = %+v, %v", got, err)
	}
}

func TestRemoveRejectsMalformedRequest(t *testing.T) {
	for _, req := range []RemoveRequest{{Subscription: "etcd"}, {Namespace: "ops"}} {
		// No client: a malformed request must fail before any call.
		res, err := (&Applier{}).Remove(t.Context(), req)
		if res != nil || !containsAll(errString(err), "namespace and subscription are required") {
			t.Errorf("Remove(%+v) = %v, %v", req, res, err)
		}
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
