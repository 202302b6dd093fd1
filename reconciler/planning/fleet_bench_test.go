package planning_test

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/fleettest"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

// webhookToFleetProposals times a fleet of n clusters × 20 subscriptions
// on ocp-v4.20's community catalog (internal/fleettest) through the
// Planner controller: each cluster's Subscription of the first package is
// Manual, the other 19 Automatic. Before the clock starts the Planner has
// planned the fleet and its proposals are merged. Each iteration commits a
// new head of that package's default channel, which changes the target of
// every cluster, and times the push webhook until the n pull requests to
// it are open on the GitHub fake (no latency of its own) and the pass is
// recorded in the Planner's status.
func webhookToFleetProposals(b *testing.B, n int) {
	if testing.Short() {
		b.Skip("a fleet of 100 clusters: not with -short")
	}
	fl := fleettest.Write(b, fleettest.Options{Clusters: n, Subscriptions: 20, BundlesPath: "bundles/community", Manual: 1})
	pkg := fl.Packages[0]
	benchRepos++
	name := fmt.Sprintf("bench-fleet-%d", benchRepos)
	// A server of its own, whose requests say what they cost git.
	cost := &gitCost{}
	srv := gittest.NewServer(b, gittest.ServerOptions{Username: "olmops", Password: gitPassword, RequestLog: cost})
	srv.CreateRepo(b, name)
	f := &fleet{env: kubetest.Start(b, kubetest.WithCRDDirs("../../config/crd/bases"), kubetest.WithScheme(v1alpha1.AddToScheme))}
	f.dir, f.url = srv.RepoDir(name), srv.RepoURL(name)
	gittest.Git(b, fl.Dir, "push", "--quiet", f.dir, "main")
	f.gh = githubtest.NewServer(b, githubtest.Options{Owner: "acme", Repo: "fleet", Token: ghToken, GitDir: f.dir})
	f.startManager(b, nil)
	f.planner(b)
	f.pullsOpened(b, 15*time.Minute, n)
	f.passRecorded(b, 5*time.Minute, "") // the Automatic plans moved main
	merged := 0
	for version := 1; b.Loop(); version++ {
		b.StopTimer()
		merged = f.mergeAll(b, merged)
		target := fmt.Sprintf("99.0.%d", version)
		head := gittest.Commit(b, f.dir, "main", gittest.Change{Files: fl.NewHead(b, pkg, target), Message: pkg.Name + " " + target})
		cost.take()
		fake := f.gh.GitRuns()
		b.StartTimer()
		start, self, children := time.Now(), cpuTime(b, false), cpuTime(b, true)
		f.push(b)
		f.pullsOpened(b, 5*time.Minute, merged+n)
		obj := f.passRecorded(b, 5*time.Minute, head)
		b.StopTimer()
		// CPU time barely moves with the machine's load, wall time does.
		b.Logf("%s: %d proposals opened and recorded %.2fs after the push; CPU %.2fs in this process, %.2fs in git and other finished subprocesses",
			target, n, time.Since(start).Seconds(), (cpuTime(b, false) - self).Seconds(), (cpuTime(b, true) - children).Seconds())
		b.Logf("%s: git http-backend %v; the GitHub fake's git %v", target, cost.take(), fakeRuns(fake, f.gh.GitRuns()))
		if got := f.pullRequests() - merged; got != n {
			b.Fatalf("the pass opened %d pull requests, want %d", got, n)
		}
		for _, p := range obj.Status.Proposals {
			if p.Number > merged && p.TargetBundle != pkg.Name+".v"+target {
				b.Fatalf("proposal %+v, want one to %s.v%s", p, pkg.Name, target)
			}
		}
		b.StartTimer()
	}
	b.StopTimer()
	plans := strings.Count(gittest.Git(b, f.dir, "ls-tree", "-r", "--name-only", "main", "clusters"), "/installplan.yaml\n")
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/op")
	b.ReportMetric(float64(n), "proposals")
	b.ReportMetric(float64(plans), "plans")
}

// fakeRuns is what the GitHub fake's git subprocesses cost between two
// readings of GitRuns.
func fakeRuns(before, after map[string]githubtest.GitRun) string {
	var out []string
	var total time.Duration
	for _, sub := range slices.Sorted(maps.Keys(after)) {
		runs, cpu := after[sub].Runs-before[sub].Runs, after[sub].CPU-before[sub].CPU
		if runs > 0 {
			out = append(out, fmt.Sprintf("%s ×%d %.2fs", sub, runs, cpu.Seconds()))
			total += cpu
		}
	}
	return fmt.Sprintf("%.2fs: %s", total.Seconds(), strings.Join(out, ", "))
}

// pullsOpened waits for the n-th pull request, which costs the fake a
// lock, not the API server a read: the status is polled only after.
func (f *fleet) pullsOpened(t testing.TB, limit time.Duration, n int) {
	t.Helper()
	eventuallyWithin(t, limit, fmt.Sprintf("pull request #%d opened", n), func() (bool, string) {
		_, ok := f.gh.PR(n)
		return ok, fmt.Sprintf("%d pull requests", f.pullRequests())
	})
}

// passRecorded waits for a pass that planned head ("": main's head as it
// is then), succeeded and recorded every proposal as open.
func (f *fleet) passRecorded(t testing.TB, limit time.Duration, head string) *v1alpha1.Planner {
	t.Helper()
	var obj *v1alpha1.Planner
	eventuallyWithin(t, limit, "planned "+head, func() (bool, string) {
		obj = f.get(t)
		saw := fmt.Sprintf("%+v", obj.Status.Conditions)
		for _, p := range obj.Status.Proposals {
			if p.State != "open" {
				return false, fmt.Sprintf("proposal %+v", p)
			}
		}
		if !meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.ReadyCondition) || obj.Status.LastPlannedCommit == "" {
			return false, saw
		}
		// Read only once the pass is recorded: git runs for it.
		return obj.Status.LastPlannedCommit == cmp.Or(head, f.head(t)), saw
	})
	return obj
}

// mergeAll merges the pull requests after the first merged, as people
// approving them, and returns how many there are.
func (f *fleet) mergeAll(t testing.TB, merged int) int {
	t.Helper()
	n := f.pullRequests()
	for i := merged + 1; i <= n; i++ {
		f.gh.Merge(t, i)
	}
	return n
}

// pullRequests is the number of pull requests ever opened.
func (f *fleet) pullRequests() int {
	n := 0
	for {
		if _, ok := f.gh.PR(n + 1); !ok {
			return n
		}
		n++
	}
}
