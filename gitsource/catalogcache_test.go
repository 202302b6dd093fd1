package gitsource_test

import (
	"sync"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

const etcdCatalog = `---
schema: olm.package
name: etcd
defaultChannel: stable
---
schema: olm.channel
package: etcd
name: stable
entries:
  - name: etcd.v0.9.4
---
schema: olm.bundle
package: etcd
name: etcd.v0.9.4
image: quay.io/example/etcd:v0.9.4
properties:
  - type: olm.package
    value: {packageName: etcd, version: 0.9.4}
`

func TestCatalogCacheParsesOnce(t *testing.T) {
	rm := newRemote(t, map[string][]byte{
		"catalogs/ops/etcd/catalog.yaml": []byte(etcdCatalog),
		"clusters/prod/subs.yaml":        []byte("one\n"),
	})
	c1 := rm.head(t, "main")
	c2 := rm.commit(t, "main", gittest.Change{Files: map[string][]byte{"clusters/prod/subs.yaml": []byte("two\n"), "README.md": []byte("hi\n")}})
	c3 := rm.commit(t, "main", gittest.Change{Files: map[string][]byte{"catalogs/ops/etcd/catalog.yaml": []byte(etcdCatalog + "# edited\n")}})
	repo := rm.open(t)
	cache := gitsource.NewCatalogCache(4)

	get := func(commit string) *catalog.Catalog {
		t.Helper()
		snap := snapshot(t, repo, commit)
		cat, err := cache.Get(t.Context(), snap, "catalogs/ops", "ops")
		if err != nil {
			t.Fatalf("Get at %s: %v", commit, err)
		}
		return cat
	}
	first := get(c1.String())
	if first.Packages["etcd"] == nil || first.Name != "ops" {
		t.Fatalf("catalog = %+v, want package etcd in catalog ops", first)
	}
	if pos := first.Packages["etcd"].Pos.File; pos != "catalogs/ops/etcd/catalog.yaml" {
		t.Errorf("position file = %q, want the path in the repository", pos)
	}
	if second := get(c2.String()); second != first {
		t.Error("a commit that changes only other files parsed the catalog again")
	}
	if got, want := cache.Stats(), (gitsource.CacheStats{Hits: 1, Loads: 1}); got != want {
		t.Errorf("stats after two commits = %+v, want %+v", got, want)
	}
	if third := get(c3.String()); third == first {
		t.Error("a changed catalog came from the cache")
	}
	if got := cache.Stats().Loads; got != 2 {
		t.Errorf("loads after the catalog changed = %d, want 2", got)
	}
}

func TestCatalogCacheConcurrentAndBounded(t *testing.T) {
	rm := newRemote(t, map[string][]byte{
		"catalogs/a/etcd/catalog.yaml": []byte(etcdCatalog),
		"catalogs/b/etcd/catalog.yaml": []byte(etcdCatalog + "# b\n"),
	})
	repo := rm.open(t)
	snap := snapshot(t, repo, "main")

	cache := gitsource.NewCatalogCache(1)
	var wg sync.WaitGroup
	cats := make([]*catalog.Catalog, 8)
	for i := range cats {
		wg.Go(func() {
			cat, err := cache.Get(t.Context(), snap, "catalogs/a", "a")
			if err != nil {
				t.Error(err)
			}
			cats[i] = cat
		})
	}
	wg.Wait()
	for _, cat := range cats[1:] {
		if cat != cats[0] {
			t.Fatal("concurrent Gets returned different catalogs")
		}
	}
	if got := cache.Stats(); got.Loads != 1 || got.Hits != len(cats)-1 {
		t.Errorf("stats after concurrent Gets = %+v, want 1 load", got)
	}

	// Size 1: b evicts a, and a loads again.
	for _, dir := range []string{"catalogs/b", "catalogs/a"} {
		if _, err := cache.Get(t.Context(), snap, dir, dir); err != nil {
			t.Fatal(err)
		}
	}
	if got := cache.Stats(); got.Loads != 3 || got.Evictions != 2 {
		t.Errorf("stats after eviction = %+v, want 3 loads and 2 evictions", got)
	}

	if _, err := cache.Get(t.Context(), snap, "catalogs/missing", "missing"); err == nil {
		t.Error("Get of a missing folder succeeded")
	}
}
