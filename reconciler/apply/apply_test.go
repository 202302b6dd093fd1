package apply

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/render"
)

// recorder passes writes through to the API server and notes the order of
// the real (not dry-run) applies, and which were sent while a CRD sent
// before them was not yet Established.
type recorder struct {
	mu    sync.Mutex
	sent  []string
	crds  []string
	early []string
}

func (rec *recorder) client(t *testing.T, env *kubetest.Env) client.Client {
	t.Helper()
	c, err := client.NewWithWatch(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	return interceptor.NewClient(c, interceptor.Funcs{
		Apply: func(ctx context.Context, c client.WithWatch, obj runtime.ApplyConfiguration, opts ...client.ApplyOption) error {
			o := &client.ApplyOptions{}
			o.ApplyOptions(opts)
			u := obj.(interface {
				GetKind() string
				GetName() string
			})
			if len(o.DryRun) == 0 {
				rec.note(ctx, c, u.GetKind(), u.GetName())
			}
			return c.Apply(ctx, obj, opts...)
		},
	})
}

func (rec *recorder) note(ctx context.Context, c client.Reader, kind, name string) {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	rec.sent = append(rec.sent, kind+"/"+name)
	if kind == "CustomResourceDefinition" {
		rec.crds = append(rec.crds, name)
		return
	}
	for _, crd := range rec.crds {
		u := &unstructured.Unstructured{}
		u.SetGroupVersionKind(crdGVK)
		if err := c.Get(ctx, client.ObjectKey{Name: crd}, u); err != nil || condition(u, "Established")["status"] != "True" {
			rec.early = append(rec.early, kind+"/"+name+" before "+crd)
		}
	}
}

func (rec *recorder) index(t *testing.T, kindName string) int {
	t.Helper()
	i := slices.Index(rec.sent, kindName)
	if i < 0 {
		t.Fatalf("%s was never applied; applied: %v", kindName, rec.sent)
	}
	return i
}

func TestApplyInstall(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t) + "-new" // a namespace Apply must create
	crd, widget := widgetObjects(ns)
	hop := etcdHop(t, ns, "etcdoperator.v0.9.4")
	hop.Objects = append(hop.Objects, widget, crd)
	rec := &recorder{}
	a := testApplier(rec.client(t, env))
	rollout(t, env, ns)

	res, err := a.Apply(t.Context(), Request{Cluster: "test", Namespace: ns, Subscription: "etcd", Hops: []Hop{hop}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Report().Description(), "etcdoperator.v0.9.4 installed · healthy"; got != want {
		t.Errorf("report %q, want %q", got, want)
	}
	if res.Installed != "etcdoperator.v0.9.4" || res.Hop != 1 || res.Applied != len(hop.Objects) || res.Pruned != 0 {
		t.Errorf("result %+v", res)
	}

	t.Run("order", func(t *testing.T) {
		if len(rec.early) > 0 {
			t.Errorf("applied while a CRD sent before was not Established: %v", rec.early)
		}
		for _, before := range [][2]string{
			{"CustomResourceDefinition/" + crd.GetName(), "Widget/w1"},
			{"CustomResourceDefinition/" + etcdCRD, "ServiceAccount/etcd-operator"},
			{"ServiceAccount/etcd-operator", "Deployment/etcd-operator"},
			{"RoleBinding/etcd-etcd-operator", "Deployment/etcd-operator"},
			{"Deployment/etcd-operator", "OperatorCondition/etcdoperator.v0.9.4"},
		} {
			if rec.index(t, before[0]) > rec.index(t, before[1]) {
				t.Errorf("%s applied after %s: %v", before[0], before[1], rec.sent)
			}
		}
	})
	t.Run("namespace created and labelled", func(t *testing.T) {
		got := get(t, env.Client, nsGVK, "", ns)
		if got.GetLabels()[render.ManagedByLabel] != render.ManagedBy {
			t.Errorf("namespace labels %v", got.GetLabels())
		}
	})
	t.Run("field manager", func(t *testing.T) {
		for _, o := range hop.Objects {
			live := get(t, env.Client, o.GroupVersionKind(), o.GetNamespace(), o.GetName())
			if !managedBy(live, "olmops") {
				t.Errorf("%s: no Apply by olmops in %+v", entryOf(o), live.GetManagedFields())
			}
			if live.GetAnnotations()[HashAnnotation] == "" || live.GetLabels()[render.ManagedByLabel] != render.ManagedBy {
				t.Errorf("%s: annotations %v labels %v", entryOf(o), live.GetAnnotations(), live.GetLabels())
			}
		}
	})
	t.Run("inventory", func(t *testing.T) {
		if len(res.Inventory) != len(hop.Objects) {
			t.Fatalf("inventory has %d entries, want %d: %v", len(res.Inventory), len(hop.Objects), res.Inventory)
		}
		for _, o := range hop.Objects {
			if !res.Inventory.Has(entryOf(o)) {
				t.Errorf("inventory lacks %s", entryOf(o))
			}
		}
		if !slices.IsSortedFunc(res.Inventory, compareEntries) {
			t.Errorf("inventory not sorted: %v", res.Inventory)
		}
		data, err := json.Marshal(res.Inventory)
		if err != nil {
			t.Fatal(err)
		}
		var back Inventory
		if err := json.Unmarshal(data, &back); err != nil || !slices.Equal(back, res.Inventory) {
			t.Errorf("inventory does not survive JSON (%v): %s", err, data)
		}
	})
}

// A second apply of the same plan sends nothing; an object edited or
// deleted in the cluster is applied again and the edit undone.
func TestApplyAgainCorrectsDrift(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	a := testApplier(env.Client)
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}}
	next := func(t *testing.T) *Result {
		t.Helper()
		res, err := a.Apply(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		req.Installed, req.Inventory = res.Installed, res.Inventory
		return res
	}
	first := next(t)
	n := len(req.Hops[0].Objects)
	if first.Applied != n {
		t.Fatalf("first apply sent %d objects, want %d", first.Applied, n)
	}
	if res := next(t); res.Applied != 0 || res.Skipped != n || !res.Healthy {
		t.Fatalf("no-op apply: applied %d, skipped %d, healthy %v", res.Applied, res.Skipped, res.Healthy)
	}

	d := get(t, env.Client, deploymentGVK, ns, "etcd-operator")
	if err := unstructured.SetNestedField(d.Object, int64(3), "spec", "replicas"); err != nil {
		t.Fatal(err)
	}
	labels := d.GetLabels()
	labels[render.PackageLabel] = "edited"
	d.SetLabels(labels)
	if err := env.Client.Update(t.Context(), d, client.FieldOwner("kubectl-edit")); err != nil {
		t.Fatal(err)
	}
	sa := get(t, env.Client, saGVK, ns, "etcd-operator")
	if err := env.Client.Delete(t.Context(), sa); err != nil {
		t.Fatal(err)
	}

	if res := next(t); res.Applied != 2 {
		t.Errorf("apply after drift sent %d objects, want 2 (Deployment, ServiceAccount)", res.Applied)
	}
	d = get(t, env.Client, deploymentGVK, ns, "etcd-operator")
	if r, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas"); r != 1 || d.GetLabels()[render.PackageLabel] != "etcd" {
		t.Errorf("drift not corrected: replicas %d, labels %v", r, d.GetLabels())
	}
	get(t, env.Client, saGVK, ns, "etcd-operator")
}

func TestApplyRejectsMalformedRequest(t *testing.T) {
	good := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}}}
	tests := []struct {
		name string
		req  Request
		want string
	}{
		{"no namespace", Request{Subscription: "s", Hops: []Hop{{Bundle: "b", Objects: []*unstructured.Unstructured{good}}}}, "no namespace"},
		{"no hops", Request{Namespace: "n", Subscription: "s"}, "no hops"},
		{"hop without bundle", Request{Namespace: "n", Subscription: "s", Hops: []Hop{{Objects: []*unstructured.Unstructured{good}}}}, "hop 1 (): no bundle name"},
		{"nil object", Request{Namespace: "n", Subscription: "s", Hops: []Hop{{Bundle: "b", Objects: []*unstructured.Unstructured{nil}}}}, "object 1: apiVersion, kind and metadata.name are required"},
		{"duplicate", Request{Namespace: "n", Subscription: "s", Hops: []Hop{{Bundle: "b", Objects: []*unstructured.Unstructured{good, good.DeepCopy()}}}}, "ConfigMap c: listed twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// No client: a malformed request must fail before any call.
			res, err := (&Applier{}).Apply(t.Context(), tt.req)
			if res != nil || err == nil || !containsAll(err.Error(), tt.want) {
				t.Errorf("Apply = %v, %v; want nil and an error saying %q", res, err, tt.want)
			}
		})
	}
}

// The context ending mid-way is not a failure of the plan.
func TestApplyCanceled(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	res, err := testApplier(env.Client).Apply(ctx, Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}})
	if !errors.Is(err, context.Canceled) || res == nil || res.Phase == commitstatus.Failed {
		t.Errorf("Apply = %+v, %v; want a non-failed result and context.Canceled", res, err)
	}
}
