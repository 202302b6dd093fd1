package graph

import (
	"io"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/internal/corpus"
)

// largestCorpus is the largest real catalog the project keeps beside the
// tree (internal/corpus).
const largestCorpus = "catalogs/ocp-v4.20"

// largestPackage returns the package of c with the most channel entries
// (the first by name of equals), the graph that costs most to build and draw.
func largestPackage(c *catalog.Catalog) *catalog.Package {
	var best *catalog.Package
	bestSize := -1
	for _, name := range c.PackageNames() {
		p, size := c.Packages[name], 0
		for _, ch := range p.Channels {
			size += len(ch.Entries)
		}
		if size > bestSize { // names come sorted: the first of equals stays

			best, bestSize = p, size
		}
	}
	return best
}

func BenchmarkBuildMermaid(b *testing.B) {
	c, err := catalog.LoadDir(b.Context(), corpus.Path(b, largestCorpus), "ocp-v4.20")
	if err != nil {
		b.Fatal(err)
	}
	p := largestPackage(c)
	g := Build(p, "")
	nodes, edges := 0, 0
	for _, ch := range g.Channels {
		nodes, edges = nodes+len(ch.Nodes), edges+len(ch.Edges)
	}
	b.Logf("package %s: %d channels, %d nodes, %d edges", p.Name, len(g.Channels), nodes, edges)
	b.ReportAllocs()
	for b.Loop() {
		if err := Build(p, "").Mermaid(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
