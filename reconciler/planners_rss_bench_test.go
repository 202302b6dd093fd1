package reconciler

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/fleettest"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

const (
	// planners10 is how many Planners BenchmarkPlanners10 runs at once.
	planners10 = 10
	// plannerSubscriptions is each Planner's cluster's subscriptions.
	plannerSubscriptions = 25
)

// planners10Runs numbers BenchmarkPlanners10's repositories across -count.
var planners10Runs int

// BenchmarkPlanners10 runs the real olmops serve binary, cold, with 10
// Planners, each planning a desired-state repository of its own that
// holds ocp-v4.20's community catalog (a different tree in each, so the
// controller's catalog cache cannot share them) and one cluster of 25
// Automatic subscriptions, until every Planner has committed its plans,
// and reports the controller's peak resident memory. Target (issue #17):
// within the Deployment's memory limit, which config/manager sets from
// this figure and BenchmarkServe50's.
func BenchmarkPlanners10(b *testing.B) {
	if testing.Short() {
		b.Skip("builds olmops and plans 10 copies of a 15 MB catalog")
	}
	bin := buildOlmops(b)
	for b.Loop() {
		b.StopTimer()
		names := plannerRepos(b) // planned repositories would have nothing to do
		b.StartTimer()
		env := kubetest.Start(b, crdDirs, kubetest.WithScheme(v1alpha1.AddToScheme))
		cmd, _ := startServe(b, bin, env.Kubeconfig(b))
		keys := createPlanners(b, env, names)
		waitPlanned(b, env, keys, names)
		b.StopTimer()
		stopServe(b, cmd, env)
		b.StartTimer()
	}
}

// plannerRepos writes the 10 repositories on the git server and returns
// their names. Each is the fleet with a catalog .indexignore naming it:
// the catalog's content is the same, its git tree is not.
func plannerRepos(b *testing.B) []string {
	f := fleettest.Write(b, fleettest.Options{Clusters: 1, Subscriptions: plannerSubscriptions, BundlesPath: "bundles/community"})
	f.WriteFile(b, "clusters/c000/cluster.yaml", "openshiftVersion: 4.20.3\n")
	planners10Runs++
	names := make([]string, planners10)
	for i := range names {
		names[i] = fmt.Sprintf("planners10-%d-%d", planners10Runs, i)
		f.WriteFile(b, "catalogs/community/.indexignore", "# "+names[i]+"\n")
		gittest.Git(b, f.Dir, "add", "--all")
		gittest.Git(b, f.Dir, "commit", "--quiet", "-m", names[i])
		gittest.Git(b, gitServer.Root, "clone", "--quiet", "--bare", f.Dir, names[i]+".git")
	}
	return names
}

// createPlanners creates one Planner per repository, with an interval
// long enough that each plans once.
func createPlanners(b *testing.B, env *kubetest.Env, names []string) []client.ObjectKey {
	ns := env.NewNamespace(b)
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"},
		Data: map[string][]byte{"username": []byte("olmops"), "password": []byte(gitPassword)}}
	if err := env.Client.Create(b.Context(), sec); err != nil {
		b.Fatal(err)
	}
	keys := make([]client.ObjectKey, len(names))
	for i, name := range names {
		obj := &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.PlannerSpec{
			URL: gitServer.RepoURL(name), Interval: metav1.Duration{Duration: time.Hour},
			SecretRef: &v1alpha1.LocalObjectReference{Name: "git"}}}
		if err := env.Client.Create(b.Context(), obj); err != nil {
			b.Fatal(err)
		}
		keys[i] = client.ObjectKeyFromObject(obj)
	}
	return keys
}

// waitPlanned waits until every Planner is Ready after a pass that
// planned, and checks that the plans really are on each repository's
// main branch: a Ready status alone is not the work done.
func waitPlanned(b *testing.B, env *kubetest.Env, keys []client.ObjectKey, names []string) {
	deadline := time.Now().Add(10 * time.Minute)
	for i, key := range keys {
		for !plannedOnce(b, env, key) {
			if time.Now().After(deadline) {
				b.Fatalf("Planner %s did not plan within 10 minutes", key)
			}
			time.Sleep(100 * time.Millisecond)
		}
		plans := gittest.Git(b, gitServer.RepoDir(names[i]), "ls-tree", "-r", "--name-only", "main", "clusters/c000/plans/")
		if n := strings.Count(plans, "/installplan.yaml\n"); n != plannerSubscriptions {
			b.Fatalf("%s: %d plans on main, want %d", names[i], n, plannerSubscriptions)
		}
	}
}

func plannedOnce(b *testing.B, env *kubetest.Env, key client.ObjectKey) bool {
	obj := &v1alpha1.Planner{}
	if err := env.Client.Get(b.Context(), key, obj); err != nil {
		b.Fatal(err)
	}
	ready := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition)
	if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.StalledCondition); c != nil && c.Status == metav1.ConditionTrue {
		b.Fatalf("Planner %s stalled: %s: %s", key, c.Reason, c.Message)
	}
	return ready != nil && ready.Status == metav1.ConditionTrue && obj.Status.LastPlannedCommit != "" &&
		obj.Status.ObservedGeneration == obj.Generation
}

// stopServe reports the serve process's peak and current RSS, then stops
// it and env.
func stopServe(b *testing.B, cmd *exec.Cmd, env *kubetest.Env) {
	hwm, rss := memory(b, cmd.Process.Pid)
	logMemory(b, hwm, rss)
	b.ReportMetric(hwm, "MiB-peak-RSS")
	b.ReportMetric(rss, "MiB-RSS")
	_ = cmd.Process.Signal(os.Interrupt)
	_ = cmd.Wait()
	if err := env.Stop(); err != nil {
		b.Error(err)
	}
}

// logMemory logs one iteration's figures, which -benchtime Nx would
// otherwise report only as their mean, with the load they were taken
// under.
func logMemory(b *testing.B, hwm, rss float64) {
	raw, _ := os.ReadFile("/proc/loadavg")
	load := strings.Fields(string(raw))
	b.Logf("peak RSS %.1f MiB, RSS %.1f MiB, load average %v", hwm, rss, load[:min(3, len(load))])
}
