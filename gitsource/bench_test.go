package gitsource_test

import (
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/corpus"
	"github.com/olmops/olmops/internal/gittest"
)

// BenchmarkSnapshotLoadCatalog loads the largest corpus catalog from a git
// tree: parsed every time (cold), and through a CatalogCache that has it;
// disk is catalog.LoadDir on the same files, for comparison.
func BenchmarkSnapshotLoadCatalog(b *testing.B) {
	dir := corpus.Path(b, "catalogs/ocp-v4.20")
	rm := newRemote(b, gittest.DirFiles(b, dir, "catalogs/ocp-v4.20"))
	repo := rm.open(b)
	snap := snapshot(b, repo, "main")

	b.Run("disk", func(b *testing.B) {
		for b.Loop() {
			cat, err := catalog.LoadDir(b.Context(), dir, "ocp-v4.20")
			if err != nil {
				b.Fatal(err)
			}
			checkLoaded(b, cat)
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			cache := gitsource.NewCatalogCache(1)
			cat, err := cache.Get(b.Context(), snap, "catalogs/ocp-v4.20", "ocp-v4.20")
			if err != nil {
				b.Fatal(err)
			}
			checkLoaded(b, cat)
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache := gitsource.NewCatalogCache(1)
		if _, err := cache.Get(b.Context(), snap, "catalogs/ocp-v4.20", "ocp-v4.20"); err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			// A new snapshot of the same commit: the tree hash is looked
			// up again, as for every plan.
			snap := snapshot(b, repo, "main")
			cat, err := cache.Get(b.Context(), snap, "catalogs/ocp-v4.20", "ocp-v4.20")
			if err != nil {
				b.Fatal(err)
			}
			checkLoaded(b, cat)
		}
	})
}

func checkLoaded(b *testing.B, cat *catalog.Catalog) {
	if len(cat.Packages) < 100 {
		b.Fatalf("loaded %d packages, want the 108 of ocp-v4.20", len(cat.Packages))
	}
}
