package planner

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/fleettest"
	"github.com/olmops/olmops/internal/gittest"
)

// BenchmarkPlanFleet plans 100 clusters × 20 subscriptions from scratch:
// 2,000 plans, one commit per cluster.
func BenchmarkPlanFleet(b *testing.B) {
	dir := fleettest.Write(b, fleettest.Options{Clusters: benchClusters, Subscriptions: 20, BundlesPath: "bundles/community"}).Bare(b)
	first := strings.TrimSpace(gittest.Git(b, dir, "rev-parse", "main"))
	ctx := b.Context()
	b.ResetTimer()
	var report *Report
	for b.Loop() {
		b.StopTimer()
		gittest.Git(b, dir, "update-ref", "refs/heads/main", first)
		repo, err := gitsource.Open(ctx, gitsource.Options{Path: dir})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		report, err = New(Options{Repo: repo, Branch: "main", Version: "bench"}).Run(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if err := report.Err(); err != nil {
			b.Fatal(err)
		}
	}
	plans, commits := 0, map[string]bool{}
	for _, c := range report.Clusters {
		for _, p := range c.Plans {
			plans++
			commits[p.Commit] = true
		}
	}
	b.ReportMetric(float64(len(report.Clusters)), "clusters")
	b.ReportMetric(float64(plans), "plans")
	b.ReportMetric(float64(len(commits)), "commits")
}

// benchClusters is 100; OLMOPS_BENCH_CLUSTERS shrinks it for profiling.
var benchClusters = func() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("OLMOPS_BENCH_CLUSTERS"), &n); err == nil && n > 0 {
		return n
	}
	return 100
}()

// benchRepos numbers the git server's repositories across -count runs.
var benchRepos int

// BenchmarkCatalogCommitToProposal measures what a person waits for once
// the planner has fetched a catalog commit with a new bundle: planning the
// example fleet and opening the upgrade's pull request on the fake GitHub.
func BenchmarkCatalogCommitToProposal(b *testing.B) {
	files := examples(b)
	benchRepos++
	name := fmt.Sprintf("bench-latency-%d", benchRepos)
	gitServer.CreateRepo(b, name)
	dir := gitServer.RepoDir(name)
	files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n", 1))
	gittest.Commit(b, dir, "main", gittest.Change{Files: files, Message: "desired state"})
	gh := githubtest.NewServer(b, githubtest.Options{Owner: "acme", Repo: "fleet", Token: ghToken, GitDir: dir})
	ctx := b.Context()
	cache := b.TempDir()
	planner := func() *Planner {
		repo, err := gitsource.Open(ctx, gitsource.Options{URL: gitServer.RepoURL(name), CacheDir: cache, Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
		if err != nil {
			b.Fatal(err)
		}
		return New(Options{Repo: repo, Push: true, Version: "bench", Forge: func(r *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
			return github.New(ctx, github.Options{Owner: "acme", Repo: "fleet", Token: ghToken, BaseURL: gh.URL})
		}})
	}
	if _, err := planner().Run(ctx); err != nil {
		b.Fatal(err)
	}
	gh.Merge(b, 1)
	prev := "0.9.4"
	for patch := 10; b.Loop(); patch++ {
		b.StopTimer()
		next := fmt.Sprintf("0.9.%d", patch)
		withEtcdBundle(b, files, next, prev)
		prev = next
		gittest.Commit(b, dir, "main", gittest.Change{Files: map[string][]byte{"catalogs/operatorhub/etcd/catalog.yaml": files["catalogs/operatorhub/etcd/catalog.yaml"]}})
		p := planner() // clones once, then fetches
		b.StartTimer()
		r, err := p.Run(ctx)
		if err != nil || r.Err() != nil {
			b.Fatal(err, r.Err())
		}
	}
	b.StopTimer()
	prs := 0
	for n := 1; ; n++ {
		if _, ok := gh.PR(n); !ok {
			break
		}
		prs++
	}
	if prs < 2 {
		b.Fatalf("no upgrade pull request was opened (%d PRs)", prs)
	}
}
