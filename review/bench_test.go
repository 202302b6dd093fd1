package review

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

const benchCatalog = "../../shared/catalogs/ocp-v4.20/community-operators-prod"

// benchFleet writes, like the planner's benchmark, a repository of
// clusters × subs Subscriptions to packages of ocp-v4.20's community
// catalog, and a pull request on it that deprecates the newest bundle of
// the first subscribed package. It returns the bare repository,
// the base and the head.
func benchFleet(b *testing.B, clusters, subs int) (dir, base, head string) {
	b.Helper()
	if _, err := os.Stat(benchCatalog); err != nil {
		b.Skipf("corpus not found: %v", err)
	}
	work := b.TempDir()
	gittest.Git(b, work, "init", "--quiet", "--initial-branch=main")
	if err := os.CopyFS(filepath.Join(work, "catalogs/community"), os.DirFS(benchCatalog)); err != nil {
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
	write := func(name, data string, appendTo bool) {
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if appendTo {
			flag = os.O_WRONLY | os.O_APPEND
		}
		f, err := os.OpenFile(p, flag, 0o644)
		if err == nil {
			_, err = f.WriteString(data)
			f.Close()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	var cfg strings.Builder
	cfg.WriteString("apiVersion: olmops.io/v1alpha1\nkind: Repository\nspec:\n  catalogs:\n    - {name: community}\n  clusters:\n")
	for c := range clusters {
		fmt.Fprintf(&cfg, "    - {name: c%03d, approval: Automatic}\n", c)
		for _, p := range pkgs {
			write(fmt.Sprintf("clusters/c%03d/subscriptions/%s.yaml", c, p.Name),
				fmt.Sprintf("apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: %s, namespace: %s}\nspec: {name: %s, source: community}\n", p.Name, ns(p.Name), p.Name), false)
		}
	}
	write("olmops.yaml", cfg.String(), false)
	gittest.Git(b, work, "add", "--all")
	gittest.Git(b, work, "commit", "--quiet", "-m", "fleet")
	// The pull request: one package's newest bundle deprecated, which
	// every cluster installs.
	p := pkgs[0]
	var target *catalog.Bundle
	for _, bd := range p.Bundles {
		if target == nil || bd.Version.GreaterThan(target.Version) {
			target = bd
		}
	}
	file := strings.TrimPrefix(p.Pos.File, benchCatalog+"/")
	write("catalogs/community/"+file, fmt.Sprintf("\n---\nschema: olm.deprecations\npackage: %s\nentries:\n  - reference: {schema: olm.bundle, name: %s}\n    message: withdrawn for a bug\n", p.Name, target.Name), true)
	gittest.Git(b, work, "commit", "--quiet", "-am", "deprecate "+target.Name)
	// Reviews run on clones without a worktree in CI's eyes too: the
	// worktree plays no part.
	dir = b.TempDir()
	gittest.Git(b, dir, "clone", "--quiet", "--bare", work, dir)
	rev := func(r string) string { return strings.TrimSpace(gittest.Git(b, dir, "rev-parse", r)) }
	return dir, rev("main~1"), rev("main")
}

func ns(pkg string) string {
	if len(pkg) > 50 {
		return pkg[:50]
	}
	return strings.Trim(pkg, "-")
}

// independentPackages are n packages whose bundles need nothing else and
// that have no deprecations yet.
func independentPackages(cat *catalog.Catalog, n int) []*catalog.Package {
	var out []*catalog.Package
	for _, name := range cat.PackageNames() {
		p := cat.Packages[name]
		ok := p.DefaultChannel != "" && len(p.Bundles) <= 30 && p.Deprecation == nil
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

// BenchmarkReview reviews a pull request touching one package of a
// 100 clusters × 20 subscriptions fleet, end to end: both commits read
// from git, both sides' catalogs loaded and validated, every subscription
// resolved on both sides, the report rendered.
func BenchmarkReview(b *testing.B) {
	dir, base, head := benchFleet(b, benchClusters, 20)
	ctx := b.Context()
	var r *Report
	for b.Loop() {
		repo, err := gitsource.Open(ctx, gitsource.Options{Path: dir})
		if err != nil {
			b.Fatal(err)
		}
		r, err = Run(ctx, repo, RunOptions{Base: base, Head: head, Options: Options{Branch: "main"}})
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteMarkdown(io.Discard, r, false); err != nil {
			b.Fatal(err)
		}
	}
	if len(r.Packages) != 1 || len(r.Impact) == 0 {
		b.Fatalf("the pull request changed %d packages and moved %d subscriptions", len(r.Packages), len(r.Impact))
	}
	b.ReportMetric(float64(len(r.Impact)), "moved")
	b.ReportMetric(float64(len(r.Impact)+r.Unchanged), "subscriptions")
}

// benchClusters is 100; OLMOPS_BENCH_CLUSTERS shrinks it for profiling.
var benchClusters = func() int {
	var n int
	if _, err := fmt.Sscan(os.Getenv("OLMOPS_BENCH_CLUSTERS"), &n); err == nil && n > 0 {
		return n
	}
	return 100
}()
