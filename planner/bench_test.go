package planner

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

const benchCatalog = "../../shared/catalogs/ocp-v4.20/community-operators-prod"

// benchFleet writes a desired-state repository of clusters × subs
// Automatic subscriptions to packages of the community catalog of
// ocp-v4.20, with generated bundle folders for the bundles they resolve to
// (the catalog only names their images). It returns the repository's
// folder and its first commit.
func benchFleet(b *testing.B, clusters, subs int) (string, string) {
	b.Helper()
	if _, err := os.Stat(benchCatalog); err != nil {
		b.Skipf("corpus not found: %v", err)
	}
	dir := b.TempDir()
	gittest.Git(b, dir, "init", "--quiet", "--initial-branch=main")
	if err := os.CopyFS(filepath.Join(dir, "catalogs/community"), os.DirFS(benchCatalog)); err != nil {
		b.Fatal(err)
	}
	cat, err := catalog.LoadDir(b.Context(), benchCatalog, "community")
	if err != nil {
		b.Fatal(err)
	}
	pkgs := independentPackages(cat, subs)
	if len(pkgs) < subs {
		b.Fatalf("only %d packages without dependencies", len(pkgs))
	}
	write := func(name, data string) {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var cfg strings.Builder
	cfg.WriteString("apiVersion: olmops.io/v1alpha1\nkind: Repository\nspec:\n  catalogs:\n    - {name: community, bundlesPath: bundles/community}\n  clusters:\n")
	for c := range clusters {
		fmt.Fprintf(&cfg, "    - {name: c%03d, approval: Automatic}\n", c)
		for _, p := range pkgs {
			write(fmt.Sprintf("clusters/c%03d/subscriptions/%s.yaml", c, p.Name),
				fmt.Sprintf("apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: %s, namespace: %s}\nspec: {name: %s, source: community}\n", p.Name, ns(p.Name), p.Name))
		}
	}
	write("olmops.yaml", cfg.String())
	for _, p := range pkgs {
		for _, bn := range p.BundleNames() {
			write("bundles/community/"+bn+"/manifests/csv.yaml", benchCSV(bn))
		}
	}
	gittest.Git(b, dir, "add", "--all")
	gittest.Git(b, dir, "commit", "--quiet", "-m", "fleet")
	// Planners run on clones without a worktree (CI, the controller); a
	// person's worktree would add writing the plan files a second time.
	bare := b.TempDir()
	gittest.Git(b, bare, "clone", "--quiet", "--bare", dir, bare)
	return bare, strings.TrimSpace(gittest.Git(b, bare, "rev-parse", "HEAD"))
}

// ns keeps generated namespace names DNS labels.
func ns(pkg string) string {
	if len(pkg) > 50 {
		return pkg[:50]
	}
	return strings.Trim(pkg, "-")
}

// independentPackages are n packages whose bundles need nothing else, so
// each subscription resolves alone.
func independentPackages(cat *catalog.Catalog, n int) []*catalog.Package {
	var out []*catalog.Package
	for _, name := range cat.PackageNames() {
		p := cat.Packages[name]
		ok := p.DefaultChannel != "" && len(p.Bundles) <= 30
		for _, bd := range p.Bundles {
			s := bd.Props
			if len(s.PackagesRequired)+len(s.GVKsRequired)+len(s.Constraints) > 0 || s.KubeVersion != "" || bd.Version == nil {
				ok = false
			}
		}
		if ok {
			out = append(out, p)
		}
		if len(out) == n {
			break
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

func benchCSV(name string) string {
	return fmt.Sprintf(`apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: %[1]s
spec:
  installModes:
    - {type: AllNamespaces, supported: true}
  install:
    strategy: deployment
    spec:
      clusterPermissions:
        - serviceAccountName: operator
          rules:
            - {apiGroups: [""], resources: [pods, configmaps], verbs: [get, list, watch]}
      deployments:
        - name: operator
          spec:
            selector: {matchLabels: {app: operator}}
            template:
              metadata: {labels: {app: operator}}
              spec:
                serviceAccountName: operator
                containers:
                  - name: manager
                    image: example.com/%[1]s:latest
`, name)
}

// BenchmarkPlanFleet plans 100 clusters × 20 subscriptions from scratch:
// 2,000 plans, one commit per cluster.
func BenchmarkPlanFleet(b *testing.B) {
	dir, first := benchFleet(b, benchClusters, 20)
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
