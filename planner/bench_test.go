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

// BenchmarkPlanFleet plans n clusters × 20 subscriptions from scratch:
// 20 plans and one commit per cluster, in a bare repository and in a
// checked-out worktree. Both must cost the same, and the cost must grow
// linearly (compare 200 with 100); 1,000 is skipped with -short.
//
// Nothing is deleted until every size has run: every iteration plans in
// a fresh clone, and the fleets stay in one folder of the parent. ext4
// skips inodes freed in the last minutes when it allocates one, so
// creating a worktree's 160,000 files right after deleting as many cost
// up to ten times the CPU (perf: recently_deleted, find_inode_bit): a
// benchmark that resets its worktree between iterations measures that.
func BenchmarkPlanFleet(b *testing.B) {
	root := b.TempDir()
	for _, kind := range []string{"bare", "worktree"} {
		for _, n := range benchClusters() {
			b.Run(fmt.Sprintf("%s/%d", kind, n), func(b *testing.B) {
				if n > 200 && testing.Short() {
					b.Skip("1,000 clusters: not with -short")
				}
				planFleet(b, root, kind == "worktree", n)
			})
		}
	}
}

func planFleet(b *testing.B, root string, worktree bool, clusters int) {
	fleet := fleettest.Write(b, fleettest.Options{Clusters: clusters, Subscriptions: 20, BundlesPath: "bundles/community", Dir: root})
	ctx := b.Context()
	b.ResetTimer()
	var report *Report
	var dir string
	for b.Loop() {
		b.StopTimer()
		var err error
		if dir, err = os.MkdirTemp(root, "plan"); err != nil {
			b.Fatal(err)
		}
		args := []string{"clone", "--quiet", fleet.Dir, dir}
		if !worktree {
			args = []string{"clone", "--quiet", "--bare", fleet.Dir, dir}
		}
		gittest.Git(b, root, args...)
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
	if worktree {
		if st := gittest.Git(b, dir, "status", "--porcelain"); st != "" {
			b.Fatalf("git status after planning:\n%s", st)
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

// benchClusters are 100, 200 and 1,000; OLMOPS_BENCH_CLUSTERS picks one
// size instead, for profiling.
func benchClusters() []int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("OLMOPS_BENCH_CLUSTERS"), &n); err == nil && n > 0 {
		return []int{n}
	}
	return []int{100, 200, 1000}
}

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
