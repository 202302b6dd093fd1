package review

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/fleettest"
	"github.com/olmops/olmops/internal/gittest"
)

// benchFleet writes the planner's benchmark fleet and a pull request on
// it that deprecates the newest bundle of the first subscribed package,
// which every cluster installs. It returns the bare repository, the base
// and the head.
func benchFleet(b *testing.B, clusters, subs int) (dir, base, head string) {
	b.Helper()
	f := fleettest.Write(b, fleettest.Options{Clusters: clusters, Subscriptions: subs})
	p := f.Packages[0]
	var target *catalog.Bundle
	for _, bd := range p.Bundles {
		if target == nil || bd.Version.GreaterThan(target.Version) {
			target = bd
		}
	}
	file := f.CatalogFile(b, p.Pos)
	old, err := os.ReadFile(filepath.Join(f.Dir, file))
	if err != nil {
		b.Fatal(err)
	}
	f.WriteFile(b, file, string(old)+fmt.Sprintf("\n---\nschema: olm.deprecations\npackage: %s\nentries:\n  - reference: {schema: olm.bundle, name: %s}\n    message: withdrawn for a bug\n", p.Name, target.Name))
	gittest.Git(b, f.Dir, "commit", "--quiet", "-am", "deprecate "+target.Name)
	dir = f.Bare(b)
	rev := func(r string) string { return strings.TrimSpace(gittest.Git(b, dir, "rev-parse", r)) }
	return dir, rev("main~1"), rev("main")
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
