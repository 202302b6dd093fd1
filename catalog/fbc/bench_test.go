package fbc

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// benchCatalog finds ../shared/catalogs/ocp-v4.20 next to the repository
// root (the folder holding go.mod), or skips.
func benchCatalog(b testing.TB) string {
	b.Helper()
	dir, err := os.Getwd()
	if err != nil {
		b.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			b.Skip("no go.mod above the package")
		}
		dir = parent
	}
	cat := filepath.Join(filepath.Dir(dir), "shared", "catalogs", "ocp-v4.20")
	if _, err := os.Stat(cat); err != nil {
		b.Skipf("no catalog at %s", cat)
	}
	return cat
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
