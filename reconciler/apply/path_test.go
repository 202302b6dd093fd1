package apply

import (
	"errors"
	"slices"
	"testing"
	"time"

	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/kubetest"
)

// setUpgradeable writes the Upgradeable condition the way an operator
// (spec) or OLM (status) would, and an administrator's override.
func setUpgradeable(t *testing.T, env *kubetest.Env, ns, csv, where string, status metav1.ConditionStatus, msg string) {
	t.Helper()
	oc := &operatorsv2.OperatorCondition{}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: csv}, oc); err != nil {
		t.Fatal(err)
	}
	cond := []metav1.Condition{{Type: "Upgradeable", Status: status, Reason: "Test", Message: msg, LastTransitionTime: metav1.Now()}}
	var err error
	switch where {
	case "spec":
		oc.Spec.Conditions = cond
		err = env.Client.Update(t.Context(), oc)
	case "override":
		oc.Spec.Overrides = cond
		err = env.Client.Update(t.Context(), oc)
	case "status":
		// As OLM copies it: observed at the object's generation.
		cond[0].ObservedGeneration = oc.Generation
		oc.Status.Conditions = cond
		err = env.Client.Status().Update(t.Context(), oc)
	}
	if err != nil {
		t.Fatal(err)
	}
}

func deploymentImage(t *testing.T, env *kubetest.Env, ns string) string {
	t.Helper()
	d := get(t, env.Client, deploymentGVK, ns, "etcd-operator")
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	img, _ := cs[0].(map[string]any)["image"].(string)
	return img
}

// Upgradeable=False on the installed operator holds the upgrade, applying
// nothing, until it clears; an administrator's override wins.
func TestUpgradeableHolds(t *testing.T) {
	const msg = "backup in progress"
	tests := []struct {
		name     string
		set      func(t *testing.T, env *kubetest.Env, ns string)
		wantHeld bool
	}{
		{"operator says False in spec", func(t *testing.T, env *kubetest.Env, ns string) {
			setUpgradeable(t, env, ns, "etcdoperator.v0.9.2", "spec", metav1.ConditionFalse, msg)
		}, true},
		{"OLM's copy says False in status", func(t *testing.T, env *kubetest.Env, ns string) {
			setUpgradeable(t, env, ns, "etcdoperator.v0.9.2", "status", metav1.ConditionFalse, msg)
		}, true},
		{"override True wins", func(t *testing.T, env *kubetest.Env, ns string) {
			setUpgradeable(t, env, ns, "etcdoperator.v0.9.2", "spec", metav1.ConditionFalse, msg)
			setUpgradeable(t, env, ns, "etcdoperator.v0.9.2", "override", metav1.ConditionTrue, "admin says go")
		}, false},
		{"True", func(t *testing.T, env *kubetest.Env, ns string) {
			setUpgradeable(t, env, ns, "etcdoperator.v0.9.2", "spec", metav1.ConditionTrue, "")
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := kube.Env(t)
			ns := env.NewNamespace(t)
			rollout(t, env, ns)
			a := testApplier(env.Client)
			res, err := a.Apply(t.Context(), Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.2")}})
			if err != nil {
				t.Fatal(err)
			}
			tt.set(t, env, ns)
			req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}, Installed: res.Installed, Inventory: res.Inventory}
			res, err = a.Apply(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if !tt.wantHeld {
				if res.Phase != commitstatus.Installed || res.Installed != "etcdoperator.v0.9.4" {
					t.Errorf("not held but %+v", res)
				}
				return
			}
			rep := res.Report()
			if got, want := rep.Description(), "held at etcdoperator.v0.9.2 · Upgradeable=False: "+msg; got != want || rep.State() != gitsource.StatusPending {
				t.Errorf("report %q (%s), want %q (pending)", got, rep.State(), want)
			}
			if res.Applied != 0 || res.Installed != "etcdoperator.v0.9.2" || deploymentImage(t, env, ns) != "quay.io/olmops-examples/etcd-operator:v0.9.2" {
				t.Errorf("held but applied %d objects, installed %s", res.Applied, res.Installed)
			}
			if !slices.Equal(res.Inventory, req.Inventory) {
				t.Errorf("held apply changed the inventory")
			}
			// The operator clears the condition: the upgrade goes ahead.
			setUpgradeable(t, env, ns, "etcdoperator.v0.9.2", "spec", metav1.ConditionTrue, "")
			setUpgradeable(t, env, ns, "etcdoperator.v0.9.2", "status", metav1.ConditionTrue, "")
			res, err = a.Apply(t.Context(), req)
			if err != nil || res.Installed != "etcdoperator.v0.9.4" || !res.Healthy {
				t.Errorf("after the condition cleared: %+v, %v", res, err)
			}
		})
	}
}

// An installed operator saying Upgradeable=False is reported, so that the
// planner can block its next upgrade.
func TestReportsNotUpgradeable(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	a := testApplier(env.Client)
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}}
	res, err := a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	setUpgradeable(t, env, ns, "etcdoperator.v0.9.4", "spec", metav1.ConditionFalse, "migration running")
	req.Installed, req.Inventory = res.Installed, res.Inventory
	if res, err = a.Apply(t.Context(), req); err != nil {
		t.Fatal(err)
	}
	if got, want := res.Report().Description(), "etcdoperator.v0.9.4 installed · healthy · Upgradeable=False: migration running"; got != want {
		t.Errorf("report %q, want %q", got, want)
	}
}

// A two-hop plan folder is applied hop by hop: it stops at a hop that
// never becomes healthy, with the next hop untouched, and resumes from it
// once it is.
func TestTwoHops(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	a.HealthTimeout = 300 * time.Millisecond
	req, _, err := ReadRequest(t.Context(), planFS(t, ns), planDir)
	if err != nil {
		t.Fatal(err)
	}
	res, err := a.Apply(t.Context(), req)
	if !errors.Is(err, ErrUnhealthy) {
		t.Fatalf("error %v, want ErrUnhealthy", err)
	}
	want := "etcdoperator.v0.9.2 installed · unhealthy: Deployment etcd-operator: InProgress: Replicas: 0/1"
	if res.Hop != 1 || res.Hops != 2 || res.Installed != "etcdoperator.v0.9.2" || res.Report().Description() != want {
		t.Errorf("result %+v, report %q; want hop 1/2 and %q", res, res.Report().Description(), want)
	}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcdoperator.v0.9.4"}, &operatorsv2.OperatorCondition{}); !apierrors.IsNotFound(err) {
		t.Errorf("hop 2 was applied: %v", err)
	}

	rollout(t, env, ns)
	req.Installed, req.Inventory = res.Installed, res.Inventory
	res, err = a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Hop != 2 || res.Installed != "etcdoperator.v0.9.4" || !res.Healthy || res.Pruned != 1 {
		t.Errorf("resumed: %+v", res)
	}
	if img := deploymentImage(t, env, ns); img != "quay.io/olmops-examples/etcd-operator:v0.9.4" {
		t.Errorf("image %s after hop 2", img)
	}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcdoperator.v0.9.2"}, &operatorsv2.OperatorCondition{}); !apierrors.IsNotFound(err) {
		t.Errorf("hop 1's OperatorCondition not pruned: %v", err)
	}
}
