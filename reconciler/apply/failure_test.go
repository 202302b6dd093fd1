package apply

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/kubetest"
)

// A Deployment that does not become available within HealthTimeout is
// reported with what it waits for and its condition's message.
func TestHealthTimeout(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	a.HealthTimeout = 200 * time.Millisecond
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}}
	res, err := a.Apply(t.Context(), req)
	if !errors.Is(err, ErrUnhealthy) || res.Phase != commitstatus.Installed || res.Healthy {
		t.Fatalf("Apply = %+v, %v; want installed, unhealthy, ErrUnhealthy", res, err)
	}
	if want := "Deployment etcd-operator: InProgress: Replicas: 0/1"; res.Reason != want {
		t.Errorf("reason %q, want %q", res.Reason, want)
	}
	if res.Report().State() != gitsource.StatusFailure {
		t.Errorf("state %s, want failure", res.Report().State())
	}

	// The controller saw the rollout, but no pod became available.
	d := &appsv1.Deployment{}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-operator"}, d); err != nil {
		t.Fatal(err)
	}
	d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1, UnavailableReplicas: 1,
		Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentAvailable, Status: "False", Reason: "MinimumReplicasUnavailable", Message: "Deployment does not have minimum availability."}}}
	if err := env.Client.Status().Update(t.Context(), d); err != nil {
		t.Fatal(err)
	}
	req.Installed, req.Inventory = res.Installed, res.Inventory
	res, err = a.Apply(t.Context(), req)
	if want := "Deployment etcd-operator: InProgress: Available: 0/1: Deployment does not have minimum availability."; !errors.Is(err, ErrUnhealthy) || res.Reason != want {
		t.Errorf("Apply = %q, %v; want %q", res.Reason, err, want)
	}
	if res.Applied != 0 {
		t.Errorf("an unchanged plan sent %d objects", res.Applied)
	}

	// Health is the same check, for a caller to poll.
	kubetest.MarkAvailable(t.Context(), env.Client, ns)
	ok, why, err := a.Health(t.Context(), req.Hops[0].Objects)
	if !ok || why != "" || err != nil {
		t.Errorf("Health after the rollout = %v, %q, %v", ok, why, err)
	}
}

// A hop the API server refuses fails with the server's reason before
// anything of it is written: earlier objects stay, the inventory and the
// installed bundle do not change.
func TestApplyRefused(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, env *kubetest.Env, ns string)
		bad   func(ns string) *unstructured.Unstructured
		want  string
	}{
		{name: "invalid object", bad: func(ns string) *unstructured.Unstructured {
			d := deploymentOf(etcdHop(t, ns, "etcdoperator.v0.9.4"))
			_ = unstructured.SetNestedStringMap(d.Object, map[string]string{"name": "other"}, "spec", "selector", "matchLabels")
			return d
		}, want: `Deployment.apps "etcd-operator" is invalid: `},
		{name: "missing CRD", bad: func(ns string) *unstructured.Unstructured {
			return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "gadgets.example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g", "namespace": ns}}}
		}, want: `no matches for kind "Gadget" in version "gadgets.example.com/v1"`},
		{name: "admission refusal", setup: denyConfigMap, bad: func(ns string) *unstructured.Unstructured {
			return configMap(ns, "forbidden")
		}, want: `configmaps "forbidden" is forbidden: ValidatingAdmissionPolicy`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := kube.Env(t)
			ns := env.NewNamespace(t)
			rollout(t, env, ns)
			if tt.setup != nil {
				tt.setup(t, env, ns)
			}
			a := testApplier(env.Client)
			good := etcdHop(t, ns, "etcdoperator.v0.9.4")
			res, err := a.Apply(t.Context(), Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{good}})
			if err != nil {
				t.Fatal(err)
			}
			bad := etcdHop(t, ns, "etcdoperator.v0.9.4")
			bad.Bundle = "etcdoperator.v0.9.5"
			bad.Objects = slices.DeleteFunc(bad.Objects, func(o *unstructured.Unstructured) bool { return entryOf(o) == entryOf(tt.bad(ns)) })
			bad.Objects = append(bad.Objects, configMap(ns, "extra"), tt.bad(ns))
			req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{bad}, Installed: res.Installed, Inventory: res.Inventory}
			got, err := a.Apply(t.Context(), req)
			if err == nil || got == nil || got.Phase != commitstatus.Failed {
				t.Fatalf("Apply = %+v, %v; want Failed", got, err)
			}
			if !containsAll(got.Reason, tt.want) || !containsAll(got.Report().Description(), "etcdoperator.v0.9.5 failed: ", tt.want) {
				t.Errorf("reason %q, report %q; want %q", got.Reason, got.Report().Description(), tt.want)
			}
			if got.Installed != "etcdoperator.v0.9.4" || !slices.Equal(got.Inventory, res.Inventory) || got.Applied != 0 {
				t.Errorf("installed %s, applied %d, inventory changed: %v", got.Installed, got.Applied, !slices.Equal(got.Inventory, res.Inventory))
			}
			if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "extra"}, configMap(ns, "extra")); !apierrors.IsNotFound(err) {
				t.Errorf("part of the refused hop was written: %v", err)
			}
		})
	}
}

func configMap(ns, name string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": name, "namespace": ns}, "data": map[string]any{"k": "v"},
	}}
}

// denyConfigMap installs an admission policy refusing ConfigMaps named
// "forbidden" in ns, and waits until the API server enforces it.
func denyConfigMap(t *testing.T, env *kubetest.Env, ns string) {
	t.Helper()
	policy := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicy",
		"metadata": map[string]any{"name": "deny-" + ns},
		"spec": map[string]any{
			"failurePolicy": "Fail",
			"matchConstraints": map[string]any{"resourceRules": []any{map[string]any{
				"apiGroups": []any{""}, "apiVersions": []any{"v1"}, "operations": []any{"CREATE", "UPDATE"}, "resources": []any{"configmaps"},
			}}},
			"validations": []any{map[string]any{"expression": "object.metadata.name != 'forbidden'", "message": "forbidden ConfigMaps are not allowed"}},
		},
	}}
	binding := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingAdmissionPolicyBinding",
		"metadata": map[string]any{"name": "deny-" + ns},
		"spec": map[string]any{
			"policyName": "deny-" + ns, "validationActions": []any{"Deny"},
			"matchResources": map[string]any{"namespaceSelector": map[string]any{"matchLabels": map[string]any{"kubernetes.io/metadata.name": ns}}},
		},
	}}
	for _, o := range []*unstructured.Unstructured{policy, binding} {
		if err := env.Client.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 20*time.Second, true, func(ctx context.Context) (bool, error) {
		err := env.Client.Create(ctx, configMap(ns, "forbidden"), client.DryRunAll)
		return apierrors.IsForbidden(err) || apierrors.IsInvalid(err), nil
	})
	if err != nil {
		t.Fatalf("the admission policy never took effect: %v", err)
	}
}

func deploymentOf(h Hop) *unstructured.Unstructured {
	for _, o := range h.Objects {
		if o.GetKind() == "Deployment" {
			return o.DeepCopy()
		}
	}
	return nil
}
