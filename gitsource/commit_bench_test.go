package gitsource_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// BenchmarkCommitFleet writes one plan commit per cluster onto main, as
// the planner does, in a bare repository and in a checked-out worktree:
// the two must cost the same, and the cost must grow linearly with the
// number of clusters (compare the ns/commit of the sizes). As in
// planner's BenchmarkPlanFleet, nothing is deleted until every size has
// run (each iteration commits in a fresh clone): ext4 makes the files
// created right after a mass deletion cost up to ten times the CPU.
func BenchmarkCommitFleet(b *testing.B) {
	gittest.RequireGit(b)
	root := b.TempDir()
	for _, kind := range []string{"bare", "worktree"} {
		for _, clusters := range []int{100, 200, 1000} {
			b.Run(fmt.Sprintf("%s/%d", kind, clusters), func(b *testing.B) {
				if clusters > 200 && testing.Short() {
					b.Skip("1,000 clusters: not with -short")
				}
				benchCommitFleet(b, root, kind == "bare", clusters)
			})
		}
	}
}

// fleetPlans is the number of plans per cluster; each plan is an
// installplan.yaml that differs by cluster and manifests every cluster
// shares, as the planner writes them.
const fleetPlans, fleetManifests = 20, 7

func benchCommitFleet(b *testing.B, root string, bare bool, clusters int) {
	dir, err := os.MkdirTemp(root, "fleet")
	if err != nil {
		b.Fatal(err)
	}
	gittest.Git(b, dir, "init", "--quiet", "--initial-branch=main")
	for i := range 2000 { // a catalog's worth of files beside the clusters
		writeFile(b, dir, fmt.Sprintf("catalogs/c/%02d/f%04d.yaml", i%50, i), fmt.Sprintf("entry: %d\n", i))
	}
	for c := range clusters {
		writeFile(b, dir, fmt.Sprintf("clusters/c%04d/subscriptions/s.yaml", c), "kind: Subscription\n")
	}
	gittest.Git(b, dir, "add", "--all")
	gittest.Git(b, dir, "commit", "--quiet", "-m", "fleet")
	ctx := b.Context()
	var path string
	for b.Loop() {
		b.StopTimer()
		if path, err = os.MkdirTemp(root, "commit"); err != nil {
			b.Fatal(err)
		}
		args := []string{"clone", "--quiet", dir, path}
		if bare {
			args = []string{"clone", "--quiet", "--bare", dir, path}
		}
		gittest.Git(b, root, args...)
		repo, err := gitsource.Open(ctx, gitsource.Options{Path: path})
		if err != nil {
			b.Fatal(err)
		}
		parent, err := repo.Resolve(ctx, "main")
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		release := repo.HoldIndex() // as the planner does around a branch's commits
		for c := range clusters {
			files := map[string][]byte{}
			for p := range fleetPlans {
				d := fmt.Sprintf("clusters/c%04d/plans/ns%02d/sub%02d/", c, p, p)
				files[d+"installplan.yaml"] = fmt.Appendf(nil, "cluster: c%04d\nplan: %d\n", c, p)
				for m := range fleetManifests {
					files[fmt.Sprintf("%smanifests/m%d.yaml", d, m)] = fmt.Appendf(nil, "plan: %d\nmanifest: %d\n", p, m)
				}
			}
			parent, err = repo.Commit(ctx, gitsource.CommitRequest{Parent: parent, Branch: "main", Files: files, Message: "plan", Author: author})
			if err != nil {
				b.Fatal(err)
			}
		}
		if err := release(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*clusters), "ns/commit")
	if !bare {
		if st := gittest.Git(b, path, "status", "--porcelain"); st != "" {
			b.Fatalf("git status after the commits:\n%s", st)
		}
	}
}

func writeFile(b *testing.B, dir, name, data string) {
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		b.Fatal(err)
	}
}
