package reconciler

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/fleettest"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/planner"
	"github.com/olmops/olmops/reconciler/apply"
	"github.com/olmops/olmops/render"
)

// benchRepo is one cluster of 50 subscriptions to packages of ocp-v4.20's
// community catalog, on OpenShift 4.20 so every pass also checks the
// installed bundles' olm.maxOpenShiftVersion against the catalog, planned
// and committed.
func benchRepo(b *testing.B) (*gitsource.Repo, string) {
	// The catalog has 26 packages that need nothing else: 25 of them go
	// into two namespaces each, once for all namespaces and once for its
	// own namespace only, since OLM refuses a package installed twice for
	// all namespaces.
	f := fleettest.Write(b, fleettest.Options{Clusters: 1, Subscriptions: 25, BundlesPath: "bundles/community"})
	for _, p := range f.Packages {
		ns := fleettest.Namespace(p.Name) + "-2"
		f.WriteFile(b, "clusters/c000/subscriptions/"+p.Name+"-2.yaml", fmt.Sprintf(
			"apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: %s, namespace: %s}\nspec: {name: %s, source: community}\n", p.Name, ns, p.Name))
		f.WriteFile(b, "clusters/c000/subscriptions/"+p.Name+"-2-og.yaml", fmt.Sprintf(
			"apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: own, namespace: %s}\nspec: {targetNamespaces: [%s]}\n", ns, ns))
	}
	f.WriteFile(b, "clusters/c000/cluster.yaml", "openshiftVersion: 4.20.3\n")
	gittest.Git(b, f.Dir, "add", "--all")
	gittest.Git(b, f.Dir, "commit", "--quiet", "-m", "facts")
	dir := f.Bare(b)
	repo, err := gitsource.Open(b.Context(), gitsource.Options{Path: dir})
	if err != nil {
		b.Fatal(err)
	}
	report, err := planner.New(planner.Options{Repo: repo, Branch: "main", Version: "bench"}).Run(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	if err := report.Err(); err != nil {
		b.Fatal(err)
	}
	return repo, dir
}

// labelCache is the cache the manager gives the Applier: olmops' objects
// only.
func labelCache(b *testing.B, env *kubetest.Env) cache.Cache {
	return env.Cache(b, cache.Options{DefaultLabelSelector: labels.SelectorFromSet(labels.Set{render.ManagedByLabel: render.ManagedBy})})
}

// BenchmarkNoopPass50 is one interval of a Repository with 50
// subscriptions whose cluster already matches: load the plans, apply
// nothing, post nothing. Target: < 200 ms.
func BenchmarkNoopPass50(b *testing.B) {
	repo, _ := benchRepo(b)
	env := kubetest.Start(b, kubetest.WithOperatorConditionCRD())
	direct, err := client.New(env.Config, client.Options{Scheme: env.Scheme})
	if err != nil {
		b.Fatal(err)
	}
	s := &Syncer{Applier: &apply.Applier{Client: direct, Reader: labelCache(b, env), PollInterval: 20 * time.Millisecond,
		Impersonate: apply.NewImpersonator(env.Config, client.Options{Scheme: env.Scheme, Mapper: direct.RESTMapper()}).Client},
		Catalogs: gitsource.NewCatalogCache(0)}
	commit, err := repo.Resolve(b.Context(), "main")
	if err != nil {
		b.Fatal(err)
	}
	t := Target{ID: "bench", Repo: repo, Commit: commit, Branch: "main", Cluster: "c000", Prune: true,
		Forge: fixedForge(gitsource.NewGitForge(repo))}
	stop := kubetest.Rollout(b.Context(), env.Client, "", 20*time.Millisecond)
	out := syncOK(b, s, t) // installs everything
	stop()
	t.Previous = out.Subscriptions
	out = syncOK(b, s, t) // the cache has caught up
	t.Previous = out.Subscriptions
	b.ResetTimer()
	for b.Loop() {
		out = syncOK(b, s, t)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/pass")
	if out.ClusterStatus == nil || !strings.HasPrefix(out.ClusterStatus.Description, "every installed operator allows OpenShift 4.21") && out.ClusterStatus.State != gitsource.StatusFailure {
		b.Errorf("cluster status %+v", out.ClusterStatus)
	}
}

// syncOK runs a pass and fails unless every plan is installed and healthy.
func syncOK(b *testing.B, s *Syncer, t Target) *Outcome {
	out, err := s.Sync(b.Context(), t)
	if err != nil {
		b.Fatal(err)
	}
	if len(out.Subscriptions) != 50 || out.Reason != v1alpha1.SucceededReason {
		b.Fatalf("%d subscriptions, %s: %s", len(out.Subscriptions), out.Reason, out.Message)
	}
	return out
}

// BenchmarkMergeToStatus measures what a person waits for after merging
// a plan: from the push webhook to the plan applied, healthy (the test
// plays the kubelet within 10 ms) and its success status on GitHub. Each
// round commits a changed overlay for staging and plans it first, off
// the clock. Target: < 5 s.
func BenchmarkMergeToStatus(b *testing.B) {
	f := newFleet(b, true, overlay(extraConfigMap))
	f.plan(b)
	key := f.repository(b, "staging")
	ctxEtcd := "olmops/staging/etcd-system/etcd"
	eventually(b, "installed", func() (bool, string) {
		st, _ := f.subscription(b, key, "etcd-system", "etcd")
		return st.Phase == v1alpha1.SubscriptionInstalled, st.Message
	})
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		cm := strings.Replace(extraConfigMap, "k: v", fmt.Sprintf("k: v%d", n), 1)
		gittest.Commit(b, f.dir, "main", gittest.Change{Files: overlay(cm), Message: fmt.Sprintf("round %d", n)})
		f.plan(b)
		carrier := f.carrier(b, "staging", "etcd-system", "etcd")
		b.StartTimer()
		f.push(b)
		eventually(b, "reported", func() (bool, string) {
			s, _ := f.githubStatus(carrier, ctxEtcd)
			return s.State == "success", s.Description
		})
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/merge")
}
