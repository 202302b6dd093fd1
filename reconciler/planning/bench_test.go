package planning_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

// benchRepos numbers the git server's repositories across -count runs.
var benchRepos int

// BenchmarkWebhookToProposal measures what a person waits for, from the
// push webhook to the pull request opened: on the example repository
// (example), and on a fleet of 100 clusters × 20 subscriptions
// (fleet-100, fleet_bench_test.go).
func BenchmarkWebhookToProposal(b *testing.B) {
	b.Run("example", webhookToExampleProposal)
	b.Run("fleet-100", func(b *testing.B) { webhookToFleetProposals(b, 100) })
}

// webhookToExampleProposal times the example repository: from the push
// webhook of a merge (etcd 0.9.2 on prod-east) to the next pull request
// (0.9.4) opened and recorded in the Planner's status, through the
// controller in envtest, git http-backend and the GitHub fake (whose
// latency is nil). Each iteration starts from a repository of its own,
// planned once before the clock starts.
func webhookToExampleProposal(b *testing.B) {
	f := &fleet{env: kubetest.Start(b, kubetest.WithCRDDirs("../../config/crd/bases"), kubetest.WithScheme(v1alpha1.AddToScheme))}
	f.startManager(b, nil)
	files := map[string][]byte{}
	for k, v := range gittest.DirFiles(b, "../../examples", "") {
		files[strings.TrimPrefix(k, "/")] = v
	}
	files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n", 1))
	for b.Loop() {
		b.StopTimer()
		benchRepos++
		name := fmt.Sprintf("bench-webhook-%d", benchRepos)
		gitServer.CreateRepo(b, name)
		f.dir, f.url = gitServer.RepoDir(name), gitServer.RepoURL(name)
		f.gh = githubtest.NewServer(b, githubtest.Options{Owner: "acme", Repo: "fleet", Token: ghToken, GitDir: f.dir})
		gittest.Commit(b, f.dir, "main", gittest.Change{Files: files, Message: "desired state"})
		f.planner(b)
		f.planned(b)
		f.gh.Merge(b, 1)
		b.StartTimer()
		f.push(b)
		eventually(b, "proposal opened", func() (bool, string) {
			obj := f.get(b)
			p, ok := proposal(obj, etcdBranch)
			return ok && p.Number == 2 && p.State == "open", fmt.Sprintf("%+v", obj.Status)
		})
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/proposal")
}

// BenchmarkUnchangedPoll measures the cost of polling a catalog image
// that did not move, as the controller sees it between two polls: the
// registry HEADs per poll are reported (1 is the target).
func BenchmarkUnchangedPoll(b *testing.B) {
	count := &registryCount{}
	reg := ocitest.NewRegistry(b, ocitest.WithMiddleware(count.middleware))
	ref := reg.Ref("olmops/operatorhub:v4.20")
	reg.Push(b, ref, ocitest.CatalogImage(b, catalogImage(b)))
	f := newFleet(b)
	f.withSource(b, ref, "")
	f.planner(b)
	f.catalogPoll(b, "first import", func(c v1alpha1.CatalogPoll) bool { return c.ImportedDigest != "" })
	heads, others := count.heads.Load(), count.others.Load()
	last := f.get(b).Status.Catalogs[0].LastPollTime.Time
	polls := 0
	for b.Loop() {
		// lastPollTime has whole seconds, and the interval is one.
		_, c := f.catalogPoll(b, "next poll", func(c v1alpha1.CatalogPoll) bool { return c.LastPollTime.Time.After(last) })
		last = c.LastPollTime.Time
		polls++
	}
	b.ReportMetric(float64(count.heads.Load()-heads)/float64(polls), "HEADs/poll")
	b.ReportMetric(float64(count.others.Load()-others)/float64(polls), "other-requests/poll")
}
