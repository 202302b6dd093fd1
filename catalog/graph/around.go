package graph

import (
	"cmp"
	"slices"
)

// MaxNodes bounds the nodes of a drawing made for Markdown (Around and a
// diff's drawing): GitHub renders small graphs well and large ones not at
// all.
const MaxNodes = 40

// Options say what Mark marks on a graph.
type Options struct {
	// Highlight is an upgrade path: bundle names in the order they are
	// installed. Its nodes and the edges between consecutive names are
	// drawn distinctly.
	Highlight []string
	// From is the installed bundle. It is marked "installed" and, when
	// Highlight does not start with it, taken as the path's first step.
	From string
}

// route is From followed by Highlight, without From twice.
func (o Options) route() []string {
	if o.From == "" || (len(o.Highlight) > 0 && o.Highlight[0] == o.From) {
		return o.Highlight
	}
	return append([]string{o.From}, o.Highlight...)
}

// Mark returns a copy of g with the path and the installed bundle of o
// marked in every channel that has them, in place of earlier marks. g is
// not changed.
func (g Graph) Mark(o Options) Graph {
	route := o.route()
	onPath := make(map[string]bool, len(route))
	step := map[[2]string]bool{}
	for i, name := range route {
		onPath[name] = true
		if i > 0 {
			step[[2]string{route[i-1], name}] = true
		}
	}
	out := g.clone()
	for ci := range out.Channels {
		ch := &out.Channels[ci]
		for i := range ch.Nodes {
			n := &ch.Nodes[i]
			n.Path = onPath[n.Name]
			n.Installed = o.From != "" && n.Name == o.From
		}
		for i := range ch.Edges {
			e := &ch.Edges[i]
			e.Path = step[[2]string{ch.Nodes[e.From].Name, ch.Nodes[e.To].Name}]
		}
	}
	return out
}

// Around returns the part of g a reader of an upgrade needs: the channels
// that hold every bundle of path (or, when none holds them all, those that
// hold any), and in each the nodes within radius edges of a path bundle,
// whichever way the edges go, with the edges among them. When more than
// MaxNodes nodes are that near, the nearest are kept (path bundles first).
// Each channel counts the nodes left out in Omitted, drawn as a
// "… N more" note. Around does not mark the path; see Mark. g is not
// changed.
func Around(g Graph, path []string, radius int) Graph {
	names := make(map[string]bool, len(path))
	for _, n := range path {
		names[n] = true
	}
	seeds := make([][]bool, len(g.Channels))
	holdsAll := make([]bool, len(g.Channels))
	someHoldAll := false
	for ci, ch := range g.Channels {
		seeds[ci] = make([]bool, len(ch.Nodes))
		held := map[string]bool{}
		for i, n := range ch.Nodes {
			if names[n.Name] {
				seeds[ci][i] = true
				held[n.Name] = true
			}
		}
		holdsAll[ci] = len(names) > 0 && len(held) == len(names)
		someHoldAll = someHoldAll || holdsAll[ci]
	}
	if someHoldAll {
		for ci := range seeds {
			if !holdsAll[ci] {
				seeds[ci] = nil
			}
		}
	}
	return focus(g, seeds, radius, MaxNodes)
}

// focus keeps the channels with a seed node and in them the nodes within
// radius edges of a seed, at most max nodes in all, nearest first. A
// channel whose nodes were all cut stays, as its "… N more" note.
func focus(g Graph, seeds [][]bool, radius, max int) Graph {
	type kept struct{ ci, ni, dist int }
	var cands []kept
	for ci, ch := range g.Channels {
		for ni, d := range distances(ch, seeds[ci], radius) {
			if d >= 0 {
				cands = append(cands, kept{ci, ni, d})
			}
		}
	}
	slices.SortFunc(cands, func(a, b kept) int {
		return cmp.Or(cmp.Compare(a.dist, b.dist), cmp.Compare(a.ci, b.ci), cmp.Compare(a.ni, b.ni))
	})
	keep := make([][]bool, len(g.Channels))
	for i, c := range cands {
		if keep[c.ci] == nil {
			keep[c.ci] = make([]bool, len(g.Channels[c.ci].Nodes))
		}
		keep[c.ci][c.ni] = i < max
	}
	out := Graph{Package: g.Package, Deprecated: g.Deprecated}
	for ci, ch := range g.Channels {
		if keep[ci] == nil {
			continue
		}
		sub := subChannel(ch, keep[ci])
		sub.Omitted = ch.Omitted + len(ch.Nodes) - len(sub.Nodes)
		out.Channels = append(out.Channels, sub)
	}
	return out
}

// distances returns, per node, the fewest edges between it and a seed
// (edges taken either way), or -1 when that is more than radius.
func distances(ch Channel, seeds []bool, radius int) []int {
	dist := make([]int, len(ch.Nodes))
	var frontier []int
	for i := range dist {
		dist[i] = -1
		if i < len(seeds) && seeds[i] {
			dist[i] = 0
			frontier = append(frontier, i)
		}
	}
	for d := 1; d <= radius && len(frontier) > 0; d++ {
		var next []int
		reach := func(from, to int) {
			if dist[from] == d-1 && dist[to] < 0 {
				dist[to] = d
				next = append(next, to)
			}
		}
		for _, e := range ch.Edges {
			reach(e.From, e.To)
			reach(e.To, e.From)
		}
		frontier = next
	}
	return dist
}

// subChannel is ch with only the kept nodes and the edges among them.
func subChannel(ch Channel, keep []bool) Channel {
	sub := ch
	sub.Nodes, sub.Edges = nil, nil
	index := make([]int, len(ch.Nodes))
	for i, n := range ch.Nodes {
		index[i] = -1
		if keep[i] {
			index[i] = len(sub.Nodes)
			sub.Nodes = append(sub.Nodes, n)
		}
	}
	for _, e := range ch.Edges {
		if index[e.From] >= 0 && index[e.To] >= 0 {
			e.From, e.To = index[e.From], index[e.To]
			sub.Edges = append(sub.Edges, e)
		}
	}
	return sub
}

// clone copies g deeply enough that changing its nodes and edges leaves g
// as it was.
func (g Graph) clone() Graph {
	out := g
	out.Channels = slices.Clone(g.Channels)
	for i := range out.Channels {
		out.Channels[i].Nodes = slices.Clone(out.Channels[i].Nodes)
		out.Channels[i].Edges = slices.Clone(out.Channels[i].Edges)
	}
	return out
}
