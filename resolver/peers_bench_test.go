package resolver

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/olmops/olmops/catalog"
)

// BenchmarkResolveEachAlone is the first row of PEERS.md as OLM's side is
// measured (hack/olmbench): every package of ocp-v4.20 resolved alone on
// its default channel, unsatisfiable ones included. One op is all
// packages; the per-package median is reported beside the total, and the
// CPU time beside the wall time, because the machine is shared.
func BenchmarkResolveEachAlone(b *testing.B) {
	cat := benchCatalog(b)
	cats := []*catalog.Catalog{cat}
	subs := defaultChannelSubs(cat)
	times := make([]time.Duration, 0, len(subs))
	resolved := 0
	cpu0 := cpuTime()
	for b.Loop() {
		resolved = 0
		for _, s := range subs {
			t0 := time.Now()
			_, err := Resolve(b.Context(), Namespace{Catalogs: cats, Subscriptions: []Subscription{s}})
			times = append(times, time.Since(t0))
			var u *Unsatisfiable
			switch {
			case err == nil:
				resolved++
			case !errors.As(err, &u):
				b.Fatalf("%s: %v", s.Package, err)
			}
		}
	}
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Nanoseconds())/1e6, "median-ms/package")
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(resolved), "resolved")
	b.ReportMetric(float64(len(subs)), "packages")
}
