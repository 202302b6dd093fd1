package fbc

import (
	"io/fs"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/olmops/olmops/internal/corpus"
)

// benchCatalog is ../shared/catalogs/ocp-v4.20 (internal/corpus).
func benchCatalog(b testing.TB) string {
	b.Helper()
	return corpus.Path(b, "catalogs/ocp-v4.20")
}

func dirBytes(b testing.TB, dir string) int64 {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := d.Info()
		n += fi.Size()
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
	return n
}

// peakHeap samples the live heap while it runs and reports its high water
// mark in MiB.
type peakHeap struct {
	stop chan struct{}
	done sync.WaitGroup
	peak atomic.Uint64
}

func startPeakHeap() *peakHeap {
	h := &peakHeap{stop: make(chan struct{})}
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	read := func() {
		metrics.Read(sample)
		if v := sample[0].Value.Uint64(); v > h.peak.Load() {
			h.peak.Store(v)
		}
	}
	h.done.Go(func() {
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			read()
			select {
			case <-h.stop:
				read()
				return
			case <-t.C:
			}
		}
	})
	return h
}

func (h *peakHeap) mib() float64 {
	close(h.stop)
	h.done.Wait()
	return float64(h.peak.Load()) / (1 << 20)
}

func BenchmarkLoad(b *testing.B) {
	dir := benchCatalog(b)
	b.SetBytes(dirBytes(b, dir))
	runtime.GC()
	h := startPeakHeap()
	b.ReportAllocs()
	for b.Loop() {
		cfg, err := LoadDir(b.Context(), dir)
		if err != nil {
			b.Fatal(err)
		}
		if len(cfg.Bundles) == 0 {
			b.Fatal("no bundles")
		}
	}
	b.ReportMetric(h.mib(), "peak-heap-MiB")
}
