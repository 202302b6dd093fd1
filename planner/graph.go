package planner

import (
	"github.com/olmops/olmops/catalog/graph"
	"github.com/olmops/olmops/plan"
)

// graphRadius is how far around the path a proposal's graph reaches: the
// path's neighbours show what else the reviewer could have moved to.
const graphRadius = 1

// graphBlock draws the channel around a proposal's upgrade path, as a
// Mermaid block for its body; "" for a removal.
func graphBlock(pr *plan.Proposal) string {
	m := pr.Main
	if m.Package == nil || m.State == plan.Remove {
		return ""
	}
	var path []string
	for _, h := range m.File.Spec.Path {
		path = append(path, h.Name)
	}
	var from string
	if f := m.File.Spec.From; f != nil {
		from = f.Name
	}
	channel := m.File.Spec.Path[len(m.File.Spec.Path)-1].Channel
	g := graph.Build(m.Package, channel)
	around := graph.Around(g, append([]string{from}, path...), graphRadius)
	return around.Mark(graph.Options{Highlight: path, From: from}).MermaidBlock()
}
