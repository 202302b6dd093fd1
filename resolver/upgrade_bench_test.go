package resolver

import (
	"sync"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/internal/corpus"
)

// benchCatalogDir is a real catalog set of the shared corpus
// (internal/corpus), loaded once per test binary.
const benchCatalogDir = "catalogs/ocp-v4.20"

var bench struct {
	once sync.Once
	cat  *catalog.Catalog
	err  error
}

func benchCatalog(b testing.TB) *catalog.Catalog {
	b.Helper()
	dir := corpus.Path(b, benchCatalogDir)
	bench.once.Do(func() { bench.cat, bench.err = catalog.LoadDir(b.Context(), dir, "ocp-v4.20") })
	if bench.err != nil {
		b.Fatal(bench.err)
	}
	return bench.cat
}

// benchRequest picks the longest channel of the catalog and installs its
// first entry, the expensive case: every entry is a potential successor.
func benchRequest(b *testing.B, cat *catalog.Catalog) (Request, string) {
	var best *catalog.Channel
	for _, pn := range cat.PackageNames() {
		p := cat.Packages[pn]
		for _, cn := range p.ChannelNames() {
			if ch := p.Channels[cn]; best == nil || len(ch.Entries) > len(best.Entries) {
				best = ch
			}
		}
	}
	if best == nil || len(best.Entries) == 0 {
		b.Skip("no channel with entries")
	}
	in := best.Entries[0].Name
	return Request{Package: best.Package.Name, Channels: []string{best.Name}, Installed: &Installed{Bundle: in}}, best.Package.Name
}

func BenchmarkSuccessors(b *testing.B) {
	cat := benchCatalog(b)
	cats := []*catalog.Catalog{cat}
	req, pkg := benchRequest(b, cat)
	for _, p := range []Policy{Semver, Classic} {
		b.Run(string(p), func(b *testing.B) {
			req := req
			req.Policy = p
			if _, err := Successors(cats, req); err != nil {
				b.Fatalf("%s: %v", pkg, err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Successors(cats, req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkUpgradePath(b *testing.B) {
	cat := benchCatalog(b)
	cats := []*catalog.Catalog{cat}
	req, _ := benchRequest(b, cat)
	req.Policy = Classic
	b.ReportAllocs()
	for b.Loop() {
		if _, err := UpgradePath(cats, req); err != nil {
			b.Fatal(err)
		}
	}
}
