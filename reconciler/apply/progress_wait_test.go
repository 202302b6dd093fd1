package apply

import (
	"slices"
	"testing"
	"time"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/internal/kubetest"
)

// verdict reports a Progress call that is a health poll's verdict.
func verdict(r Result) bool { return r.Phase == commitstatus.Installed && !r.Healthy }

// While a started hop waits to become healthy, Progress hears each poll's
// verdict: what is not yet healthy, and kstatus' message. Its objects are
// applied; the hop is Installed, not Healthy. Once healthy, the last call
// says so.
func TestProgressHealthWait(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	var got []Result
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}}
	rolledOut := false
	req.Progress = func(r Result) {
		got = append(got, r)
		// Three verdicts, then the Deployment controller envtest lacks
		// does its work.
		if n := len(slices.DeleteFunc(slices.Clone(got), func(r Result) bool { return !verdict(r) })); n == 3 && !rolledOut {
			rolledOut = true
			kubetest.MarkAvailable(t.Context(), env.Client, ns)
		}
	}
	res, err := a.Apply(t.Context(), req)
	if err != nil || !res.Healthy {
		t.Fatalf("Apply = %+v, %v", res, err)
	}
	if len(got) < 5 || got[0].Phase != commitstatus.Applying || !got[len(got)-1].Healthy {
		t.Fatalf("progress: %v, want applying, verdicts, installed and healthy", steps(got))
	}
	const want = "Deployment etcd-operator: InProgress: Replicas: 0/1"
	for _, r := range got[1 : len(got)-1] {
		if !verdict(r) || r.Reason != want || r.Hop != 1 || r.Bundle != "etcdoperator.v0.9.4" {
			t.Errorf("verdict %s: %q, want %q", step(r), r.Reason, want)
		}
	}
}

// A hop already installed that only needs to become healthy again makes
// no call: an apply that changes nothing stays silent, verdicts included.
func TestProgressHealthWaitSilentWhenUnchanged(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	a.HealthTimeout = 300 * time.Millisecond
	req := Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}}
	res, _ := a.Apply(t.Context(), req)
	req.Installed, req.Inventory = res.Installed, res.Inventory
	var got []Result
	req.Progress = func(r Result) { got = append(got, r) }
	if _, err := a.Apply(t.Context(), req); err == nil {
		t.Fatal("a Deployment without pods became healthy")
	}
	if len(got) > 0 {
		t.Errorf("progress %v for an unchanged hop", steps(got))
	}
}

func steps(rs []Result) []string {
	var s []string
	for _, r := range rs {
		s = append(s, step(r))
	}
	return s
}
