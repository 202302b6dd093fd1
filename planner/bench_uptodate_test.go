package planner

import (
	"fmt"
	"testing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/fleettest"
)

// BenchmarkPlanFleetUpToDate plans n clusters × 20 subscriptions whose
// plans are all committed and up to date: what every pass of the planning
// controller does when nothing changed. It commits nothing.
func BenchmarkPlanFleetUpToDate(b *testing.B) {
	for _, n := range benchClusters() {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			if n > 200 && testing.Short() {
				b.Skip("1,000 clusters: not with -short")
			}
			fleet := fleettest.Write(b, fleettest.Options{Clusters: n, Subscriptions: 20, BundlesPath: "bundles/community"})
			dir := fleet.Bare(b)
			ctx := b.Context()
			run := func() *Report {
				repo, err := gitsource.Open(ctx, gitsource.Options{Path: dir})
				if err != nil {
					b.Fatal(err)
				}
				report, err := New(Options{Repo: repo, Branch: "main", Version: "bench"}).Run(ctx)
				if err != nil {
					b.Fatal(err)
				}
				if err := report.Err(); err != nil {
					b.Fatal(err)
				}
				return report
			}
			run()
			b.ResetTimer()
			var report *Report
			for b.Loop() {
				report = run()
			}
			plans := 0
			for _, c := range report.Clusters {
				for _, p := range c.Plans {
					if p.Action != ActionNone {
						b.Fatalf("%s %s: %s, want nothing to do", c.Name, p.Key, p.Action)
					}
					plans++
				}
			}
			b.ReportMetric(float64(plans), "plans")
		})
	}
}
