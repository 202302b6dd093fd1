package graph

import (
	"cmp"
	"slices"
	"strings"
)

// Mermaid refuses a diagram beyond its maxEdges and maxTextSize settings,
// and GitHub renders with the defaults: a diagram cannot raise them itself,
// both are "secure" keys its directives may not set.
const (
	// MaxMermaidEdges is Mermaid's default maxEdges.
	MaxMermaidEdges = 500
	// MaxMermaidChars is Mermaid's default maxTextSize.
	MaxMermaidChars = 50_000
)

// fanMax is how many skipRange edges into one node Fit draws when it must
// fold: a bundle whose skipRange covers every older one makes a fan of
// edges that tells the reader nothing the label cannot.
const fanMax = 3

// Fit returns g cut down to what Mermaid draws, or g itself when it fits.
// First, skipRange fans wider than fanMax are folded: the edge from the
// newest covered bundle and every marked edge stay, the rest are counted
// in the target's label. Then, like opm's --minimum-edge, the oldest
// bundles of each channel are left out until the drawing fits; marked
// bundles (path, installed, changed) and heads stay while they can. What
// was left out is said in the title and in each channel's "… N more"
// note. g is not changed.
func Fit(g Graph) Graph {
	if fits(g) {
		return g
	}
	g = foldFans(g.clone())
	if fits(g) {
		return g
	}
	if out, ok := trimOldest(g, true); ok {
		return out
	}
	if out, ok := trimOldest(g, false); ok {
		return out
	}
	return dropChannels(g)
}

// fits reports whether Mermaid draws g: few enough edges and text.
func fits(g Graph) bool {
	edges := 0
	for _, ch := range g.Channels {
		edges += len(ch.Edges)
	}
	if edges > MaxMermaidEdges {
		return false
	}
	var b strings.Builder
	_ = g.mermaid(&b) // a strings.Builder does not fail
	return b.Len() <= MaxMermaidChars
}

// foldFans folds every skipRange fan wider than fanMax in g, in place.
func foldFans(g Graph) Graph {
	for ci := range g.Channels {
		ch := &g.Channels[ci]
		in := map[int][]int{} // target → indexes of its skipRange edges
		for i, e := range ch.Edges {
			if e.Kind == SkipRange {
				in[e.To] = append(in[e.To], i)
			}
		}
		drop := make([]bool, len(ch.Edges))
		for to, idx := range in {
			if len(idx) <= fanMax {
				continue
			}
			nearest := slices.MaxFunc(idx, func(a, b int) int { return cmp.Compare(ch.Edges[a].From, ch.Edges[b].From) })
			for _, i := range idx {
				if e := ch.Edges[i]; i != nearest && !e.Path && e.Change == Unchanged {
					drop[i] = true
					ch.Nodes[to].FoldedSkipRange++
					g.FoldedEdges++
				}
			}
		}
		kept := ch.Edges[:0]
		for i, e := range ch.Edges {
			if !drop[i] {
				kept = append(kept, e)
			}
		}
		ch.Edges = kept
	}
	return g
}

// trimOldest keeps, in every channel, its newest k bundles for the largest
// k that fits (and, with marked, every marked bundle and head besides). It
// reports false when not even k = 0 fits.
func trimOldest(g Graph, marked bool) (Graph, bool) {
	most := 0
	for _, ch := range g.Channels {
		most = max(most, len(ch.Nodes))
	}
	keepNewest := func(k int) Graph {
		out := g
		out.Channels = make([]Channel, len(g.Channels))
		for ci, ch := range g.Channels {
			out.Channels[ci] = newest(ch, k, marked)
		}
		return out
	}
	if !fits(keepNewest(0)) {
		return g, false
	}
	return keepNewest(largest(most, func(k int) bool { return fits(keepNewest(k)) })), true
}

// largest returns the largest n in [0, hi] with ok(n), by bisection: ok
// must hold for 0 and, once false, stay false for larger n.
func largest(hi int, ok func(int) bool) int {
	lo := 0
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if ok(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// newest is ch with its newest k entries (missing nodes count as oldest)
// and, with marked, its marked nodes and head.
func newest(ch Channel, k int, marked bool) Channel {
	keep := make([]bool, len(ch.Nodes))
	left := k
	for i := len(ch.Nodes) - 1; i >= 0; i-- {
		if n := ch.Nodes[i]; !n.Missing && left > 0 {
			keep[i] = true
			left--
		}
	}
	for i, n := range ch.Nodes {
		if marked && (n.Head || n.Path || n.Installed || n.Change != Unchanged) {
			keep[i] = true
		}
	}
	sub := subChannel(ch, keep)
	sub.Omitted = ch.Omitted + len(ch.Nodes) - len(sub.Nodes)
	return sub
}

// dropChannels is the last resort for a package of very many channels:
// each keeps only its "… N more" note, and channels are left out from the
// end until the rest fits.
func dropChannels(g Graph) Graph {
	notes := g
	notes.Channels = make([]Channel, len(g.Channels))
	for ci, ch := range g.Channels {
		notes.Channels[ci] = newest(ch, 0, false)
	}
	keepFirst := func(n int) Graph {
		out := notes
		out.Channels = notes.Channels[:n]
		out.OmittedChannels = g.OmittedChannels + len(g.Channels) - n
		return out
	}
	return keepFirst(largest(len(notes.Channels), func(n int) bool { return fits(keepFirst(n)) }))
}
