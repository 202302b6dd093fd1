package apply

import (
	"fmt"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/internal/kubetest"
)

// step renders a Progress call for comparison.
func step(r Result) string {
	s := fmt.Sprintf("%s %d/%d %s", r.Phase, r.Hop, r.Hops, r.Bundle)
	if r.Healthy {
		s += " healthy"
	}
	if r.NotUpgradeable != "" {
		s += " (" + r.NotUpgradeable + ")"
	}
	if r.Reason != "" {
		s += " (reason)"
	}
	return s
}

// installed applies req to the end and returns it with what the apply
// left, ready for the next one.
func installed(t *testing.T, a *Applier, req Request) Request {
	t.Helper()
	res, err := a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	req.Installed, req.Inventory = res.Installed, res.Inventory
	return req
}

func TestProgress(t *testing.T) {
	const v092, v094 = "etcdoperator.v0.9.2", "etcdoperator.v0.9.4"
	single := func(t *testing.T, ns, bundle string) Request {
		return Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, bundle)}}
	}
	twoHops := func(t *testing.T, ns string) Request {
		req, _, err := ReadRequest(t.Context(), planFS(t, ns), planDir)
		if err != nil {
			t.Fatal(err)
		}
		return req
	}
	tests := []struct {
		name string
		// prepare brings the cluster to where the observed apply starts
		// and returns its request.
		prepare func(t *testing.T, env *kubetest.Env, a *Applier, ns string) Request
		want    []string
		wantErr bool
	}{
		{name: "two hops", prepare: func(t *testing.T, _ *kubetest.Env, _ *Applier, ns string) Request {
			return twoHops(t, ns)
		}, want: []string{
			"applying 1/2 " + v092, "installed 1/2 " + v092 + " healthy",
			"applying 2/2 " + v094, "installed 2/2 " + v094 + " healthy",
		}},
		{name: "no-op re-apply", prepare: func(t *testing.T, _ *kubetest.Env, a *Applier, ns string) Request {
			return installed(t, a, twoHops(t, ns))
		}},
		{name: "re-apply correcting drift", prepare: func(t *testing.T, env *kubetest.Env, a *Applier, ns string) Request {
			req := installed(t, a, single(t, ns, v094))
			d := get(t, env.Client, deploymentGVK, ns, "etcd-operator")
			if err := unstructured.SetNestedField(d.Object, int64(2), "spec", "replicas"); err != nil {
				t.Fatal(err)
			}
			if err := env.Client.Update(t.Context(), d, client.FieldOwner("kubectl-edit")); err != nil {
				t.Fatal(err)
			}
			return req
		}, want: []string{"applying 1/1 " + v094, "installed 1/1 " + v094 + " healthy"}},
		{name: "held", prepare: func(t *testing.T, env *kubetest.Env, a *Applier, ns string) Request {
			prev := installed(t, a, single(t, ns, v092))
			setUpgradeable(t, env, ns, v092, "spec", metav1.ConditionFalse, "backup in progress")
			req := single(t, ns, v094)
			req.Installed, req.Inventory = prev.Installed, prev.Inventory
			return req
		}, want: []string{"held 1/1 " + v094 + " (backup in progress)"}},
		{name: "refused", prepare: func(t *testing.T, _ *kubetest.Env, a *Applier, ns string) Request {
			prev := installed(t, a, single(t, ns, v094))
			bad := etcdHop(t, ns, v094)
			bad.Bundle = "etcdoperator.v0.9.5"
			bad.Objects = append(bad.Objects, &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "gadgets.example.com/v1", "kind": "Gadget", "metadata": map[string]any{"name": "g", "namespace": ns},
			}})
			return Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{bad}, Installed: prev.Installed, Inventory: prev.Inventory}
		}, want: []string{"failed 1/1 etcdoperator.v0.9.5 (reason)"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := kube.Env(t)
			ns := env.NewNamespace(t)
			rollout(t, env, ns)
			a := testApplier(env.Client)
			req := tt.prepare(t, env, a, ns)
			var got []string
			req.Progress = func(r Result) {
				// The health wait's verdicts come as the rollout's
				// timing has it: TestProgressHealthWait tells them.
				if !verdict(r) {
					got = append(got, step(r))
				}
			}
			res, err := a.Apply(t.Context(), req)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Apply = %+v, %v; want error %v", res, err, tt.wantErr)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("progress\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

// Progress gets a Result of its own: keeping and changing it does not
// change the apply's.
func TestProgressGetsCopy(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	var kept []Result
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}}
	req.Progress = func(r Result) {
		kept = append(kept, r)
		for i := range r.Inventory {
			r.Inventory[i].Name = "changed"
		}
	}
	res, err := testApplier(env.Client).Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	kept = slices.DeleteFunc(kept, verdict)
	if len(kept) != 2 || len(kept[1].Inventory) != len(res.Inventory) || kept[0].Phase == res.Phase {
		t.Fatalf("kept %+v, result %+v", kept, res)
	}
	if slices.ContainsFunc(res.Inventory, func(e Entry) bool { return e.Name == "changed" }) {
		t.Errorf("Progress changed the apply's inventory: %v", res.Inventory)
	}
}
