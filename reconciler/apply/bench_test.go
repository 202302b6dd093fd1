package apply

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"

	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/render"
)

// labelCache is the cache the manager gives the Applier: olmops' objects
// only.
func labelCache(b *testing.B, env *kubetest.Env) cache.Cache {
	return env.Cache(b, cache.Options{DefaultLabelSelector: labels.SelectorFromSet(labels.Set{render.ManagedByLabel: render.ManagedBy})})
}

// BenchmarkNoopApply50 re-applies 50 subscriptions' unchanged plans: one
// no-op interval of a Repository with 50 subscriptions. Target: < 200 ms.
func BenchmarkNoopApply50(b *testing.B) {
	env := kube.Env(b)
	reqs := make([]Request, 50)
	setup := testApplier(env.Client)
	stop := kubetest.Rollout(b.Context(), env.Client, "", 10*time.Millisecond)
	for i := range reqs {
		ns := env.NewNamespace(b)
		reqs[i] = Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(b, ns, "etcdoperator.v0.9.4")}}
		res, err := setup.Apply(b.Context(), reqs[i])
		if err != nil {
			b.Fatal(err)
		}
		reqs[i].Installed, reqs[i].Inventory = res.Installed, res.Inventory
	}
	stop()
	for _, mode := range []string{"direct", "cached"} {
		b.Run(mode, func(b *testing.B) {
			a := testApplier(env.Client)
			if mode == "cached" {
				a.Reader = labelCache(b, env)
				noopInterval(b, a, reqs) // starts the informers
			}
			for b.Loop() {
				noopInterval(b, a, reqs)
			}
			b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/interval")
		})
	}
}

func noopInterval(b *testing.B, a *Applier, reqs []Request) {
	for _, req := range reqs {
		res, err := a.Apply(b.Context(), req)
		if err != nil {
			b.Fatal(err)
		}
		if res.Applied != 0 || !res.Healthy {
			b.Fatalf("%s: a no-op apply sent %d objects (healthy %v)", req.Namespace, res.Applied, res.Healthy)
		}
	}
}

// BenchmarkApplyOne installs the etcd plan into a fresh namespace, from
// the first write to healthy, with a Deployment controller that marks a
// rollout available within 10 ms. Target: < 5 s.
func BenchmarkApplyOne(b *testing.B) {
	env := kube.Env(b)
	a := &Applier{Client: env.Client}
	base := env.NewNamespace(b)
	defer kubetest.Rollout(b.Context(), env.Client, "", 10*time.Millisecond)()
	n := 0
	for b.Loop() {
		n++
		ns := fmt.Sprintf("%s-%d", base, n)
		res, err := a.Apply(b.Context(), Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(b, ns, "etcdoperator.v0.9.4")}})
		if err != nil || !res.Healthy {
			b.Fatalf("Apply = %+v, %v", res, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/apply")
}
