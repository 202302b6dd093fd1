package apply

import (
	"strings"
	"testing"

	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
)

// The hold reads what is installed from the cluster: an apply that has
// no previous Result (a Repository deleted and re-created, `olmops
// apply` without one) still honours Upgradeable=False.
func TestHoldFromTheCluster(t *testing.T) {
	const v092, v094, msg = "etcdoperator.v0.9.2", "etcdoperator.v0.9.4", "backup in progress"
	tests := []struct {
		name string
		// olm strips olmops' labels, as on an OperatorCondition OLM made.
		olm bool
		req func(ns string) Request
	}{
		{"by the package label", false, func(ns string) Request {
			return Request{Namespace: ns, Subscription: "etcd", Package: "etcd"}
		}},
		{"by the plan's from, unlabelled as OLM makes it", true, func(ns string) Request {
			return Request{Namespace: ns, Subscription: "etcd", From: v092}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := kube.Env(t)
			ns := env.NewNamespace(t)
			rollout(t, env, ns)
			a := testApplier(env.Client)
			installed(t, a, Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, v092)}})
			if tt.olm {
				oc := &operatorsv2.OperatorCondition{}
				if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: v092}, oc); err != nil {
					t.Fatal(err)
				}
				oc.Labels = nil
				if err := env.Client.Update(t.Context(), oc); err != nil {
					t.Fatal(err)
				}
			}
			setUpgradeable(t, env, ns, v092, "spec", metav1.ConditionFalse, msg)

			req := tt.req(ns)
			req.Hops = []Hop{etcdHop(t, ns, v094)}
			res, err := a.Apply(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			if res.Phase != commitstatus.Held || res.Installed != v092 || res.NotUpgradeable != msg || res.Applied != 0 {
				t.Errorf("not held: %+v", res)
			}
			if img := deploymentImage(t, env, ns); !strings.HasSuffix(img, ":v0.9.2") {
				t.Errorf("image %s while held", img)
			}
		})
	}
}

// OLM holds while OLM's copy of the conditions lags the object: the
// operator wrote something OLM has not seen yet.
func TestHoldWhileStatusLags(t *testing.T) {
	const v092 = "etcdoperator.v0.9.2"
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	a := testApplier(env.Client)
	req := installed(t, a, Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, v092)}})
	setUpgradeable(t, env, ns, v092, "status", metav1.ConditionTrue, "")
	setUpgradeable(t, env, ns, v092, "spec", metav1.ConditionTrue, "") // generation moves on

	req.Hops = []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}
	res, err := a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Phase != commitstatus.Held || !strings.Contains(res.NotUpgradeable, "is outdated") {
		t.Errorf("not held on a lagging status: %+v", res)
	}
	setUpgradeable(t, env, ns, v092, "status", metav1.ConditionTrue, "") // OLM catches up
	if res, err = a.Apply(t.Context(), req); err != nil || res.Phase != commitstatus.Installed {
		t.Errorf("after the status caught up: %+v, %v", res, err)
	}
}

// Without its previous Result, an apply resumes at the hop the cluster
// has rather than reinstalling the path from its first hop.
func TestResumeFromTheCluster(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	a := testApplier(env.Client)
	req, _, err := ReadRequest(t.Context(), planFS(t, ns), planDir)
	if err != nil {
		t.Fatal(err)
	}
	done := installed(t, a, req)
	req.Inventory = done.Inventory // Installed stays "": forgotten
	var hops []int
	req.Progress = func(r Result) { hops = append(hops, r.Hop) }
	res, err := a.Apply(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Installed != "etcdoperator.v0.9.4" || res.Hop != 2 || len(hops) != 0 {
		t.Errorf("resumed at %+v with progress from hops %v; want hop 2, no progress", res, hops)
	}
	if img := deploymentImage(t, env, ns); !strings.HasSuffix(img, ":v0.9.4") {
		t.Errorf("image %s", img)
	}
}
