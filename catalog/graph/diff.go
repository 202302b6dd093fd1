package graph

import (
	"cmp"
	"slices"

	"github.com/Masterminds/semver/v3"
)

// GraphDiff is what changed between two versions of a package's upgrade
// graph. Every list is in drawing order: channels by name, then nodes
// oldest first, then edges by their endpoints.
type GraphDiff struct {
	Package string
	// ChannelsAdded and ChannelsRemoved name whole channels; their entries
	// and edges are not repeated in the lists below.
	ChannelsAdded, ChannelsRemoved []string
	// EntriesAdded and EntriesRemoved are channel entries that appeared or
	// went (an entry still named by an edge becomes a missing node).
	EntriesAdded, EntriesRemoved []EntryRef
	// EdgesAdded and EdgesRemoved are upgrade edges that appeared or went.
	EdgesAdded, EdgesRemoved []EdgeRef
	// HeadsMoved are the channels, in both graphs, whose head changed.
	HeadsMoved []HeadMove
	// Deprecated lists what is deprecated in the new graph and was not in
	// the old one: the package, then channels, then bundles.
	Deprecated []Deprecation
	// Merged is the new graph with what was removed put back, each
	// channel, node and edge carrying its Change. Removed nodes are never
	// heads.
	Merged Graph
}

// EntryRef names one entry of a channel.
type EntryRef struct {
	Channel, Bundle, Version string
}

// EdgeRef names one upgrade edge of a channel, From upgraded to To.
type EdgeRef struct {
	Channel, From, To string
	Kind              EdgeKind
}

// HeadMove is a channel whose head changed; "" stands for no single head.
type HeadMove struct {
	Channel, Old, New string
}

// Scope is what a deprecation applies to.
type Scope string

// The scopes of a deprecation, as olm.deprecations names them.
const (
	ScopePackage Scope = "package"
	ScopeChannel Scope = "channel"
	ScopeBundle  Scope = "bundle"
)

// Deprecation is one deprecation message and what it deprecates.
type Deprecation struct {
	Scope   Scope
	Name    string
	Message string
}

// Empty reports whether the diff found no change.
func (d GraphDiff) Empty() bool {
	return len(d.ChannelsAdded)+len(d.ChannelsRemoved)+len(d.EntriesAdded)+len(d.EntriesRemoved)+
		len(d.EdgesAdded)+len(d.EdgesRemoved)+len(d.HeadsMoved)+len(d.Deprecated) == 0
}

// Diff compares the graph of a package before a change with the graph
// after it. Either may be the zero Graph, for a package that appears or
// goes. Compare graphs built the same way (all channels, or the same one).
func Diff(before, after Graph) GraphDiff {
	d := GraphDiff{Package: cmp.Or(after.Package, before.Package)}
	d.Merged = Graph{Package: d.Package, Deprecated: after.Deprecated}
	if after.Package == "" {
		d.Merged.Deprecated = before.Deprecated
	}
	oldCh, newCh := channelsByName(before), channelsByName(after)
	for _, name := range unionNames(before, after) {
		o, n := oldCh[name], newCh[name]
		var merged Channel
		switch {
		case o == nil:
			d.ChannelsAdded = append(d.ChannelsAdded, name)
			merged = markChannel(*n, Added)
		case n == nil:
			d.ChannelsRemoved = append(d.ChannelsRemoved, name)
			merged = markChannel(*o, Removed)
		default:
			merged = d.mergeChannel(*o, *n)
			if oh, nh := headName(*o), headName(*n); oh != nh {
				d.HeadsMoved = append(d.HeadsMoved, HeadMove{Channel: name, Old: oh, New: nh})
			}
		}
		d.Merged.Channels = append(d.Merged.Channels, merged)
	}
	d.Deprecated = newDeprecations(before, after)
	return d
}

func channelsByName(g Graph) map[string]*Channel {
	m := make(map[string]*Channel, len(g.Channels))
	for i := range g.Channels {
		m[g.Channels[i].Name] = &g.Channels[i]
	}
	return m
}

func unionNames(a, b Graph) []string {
	var names []string
	for _, g := range []Graph{a, b} {
		for _, ch := range g.Channels {
			names = append(names, ch.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func headName(ch Channel) string {
	for _, n := range ch.Nodes {
		if n.Head {
			return n.Name
		}
	}
	return ""
}

// markChannel marks a channel only one graph has, and all it holds.
func markChannel(ch Channel, c Change) Channel {
	out := ch
	out.Change = c
	out.Nodes = slices.Clone(ch.Nodes)
	out.Edges = slices.Clone(ch.Edges)
	for i := range out.Nodes {
		out.Nodes[i].Change = c
		if c == Removed {
			out.Nodes[i].Head = false
		}
	}
	for i := range out.Edges {
		out.Edges[i].Change = c
	}
	return out
}

// mergeChannel puts together the nodes and edges of a channel both graphs
// have, records the entries and edges that changed, and returns the new
// channel with the removed parts put back.
func (d *GraphDiff) mergeChannel(o, n Channel) Channel {
	oldNodes, newNodes := nodesByName(o), nodesByName(n)
	merged := n
	merged.Nodes = nil
	entry := map[string]Change{}
	for _, nn := range n.Nodes {
		on, had := oldNodes[nn.Name]
		switch {
		case !nn.Missing && (!had || on.Missing):
			nn.Change, entry[nn.Name] = Added, Added
		case nn.Missing && had && !on.Missing:
			// Still named by an edge: keep the version it had as an entry.
			nn.Change, entry[nn.Name], nn.Version = Removed, Removed, on.Version
		case !had:
			nn.Change = Added
		}
		merged.Nodes = append(merged.Nodes, nn)
	}
	for _, on := range o.Nodes {
		if _, ok := newNodes[on.Name]; ok {
			continue
		}
		on.Change, on.Head = Removed, false
		if !on.Missing {
			entry[on.Name] = Removed
		}
		merged.Nodes = append(merged.Nodes, on)
	}
	sortNodes(merged.Nodes, parsedVersion)
	for _, mn := range merged.Nodes {
		ref := EntryRef{Channel: n.Name, Bundle: mn.Name, Version: mn.Version}
		switch entry[mn.Name] {
		case Added:
			d.EntriesAdded = append(d.EntriesAdded, ref)
		case Removed:
			d.EntriesRemoved = append(d.EntriesRemoved, ref)
		}
	}
	merged.Edges = d.mergeEdges(o, n, merged.Nodes)
	return merged
}

// mergeEdges returns the edges of both channels between the merged nodes,
// marked, and records those that changed.
func (d *GraphDiff) mergeEdges(o, n Channel, nodes []Node) []Edge {
	oldKeys, newKeys := keySet(o.edgeKeys()), keySet(n.edgeKeys())
	index := make(map[string]int, len(nodes))
	for i, mn := range nodes {
		index[mn.Name] = i
	}
	var edges []Edge
	add := func(k namedEdge, c Change) {
		edges = append(edges, Edge{From: index[k.from], To: index[k.to], Kind: k.kind, Change: c})
	}
	for _, k := range n.edgeKeys() {
		add(k, changeIf(!oldKeys[k], Added))
	}
	for _, k := range o.edgeKeys() {
		if !newKeys[k] {
			add(k, Removed)
		}
	}
	sortEdges(edges)
	for _, e := range edges {
		ref := EdgeRef{Channel: n.Name, From: nodes[e.From].Name, To: nodes[e.To].Name, Kind: e.Kind}
		switch e.Change {
		case Added:
			d.EdgesAdded = append(d.EdgesAdded, ref)
		case Removed:
			d.EdgesRemoved = append(d.EdgesRemoved, ref)
		}
	}
	return edges
}

func changeIf(cond bool, c Change) Change {
	if cond {
		return c
	}
	return Unchanged
}

func nodesByName(ch Channel) map[string]Node {
	m := make(map[string]Node, len(ch.Nodes))
	for _, n := range ch.Nodes {
		m[n.Name] = n
	}
	return m
}

// edgeKeys names the channel's edges by their endpoints, in edge order.
func (ch Channel) edgeKeys() []namedEdge {
	keys := make([]namedEdge, len(ch.Edges))
	for i, e := range ch.Edges {
		keys[i] = namedEdge{ch.Nodes[e.From].Name, ch.Nodes[e.To].Name, e.Kind}
	}
	return keys
}

func keySet(keys []namedEdge) map[namedEdge]bool {
	m := make(map[namedEdge]bool, len(keys))
	for _, k := range keys {
		m[k] = true
	}
	return m
}

// parsedVersion reads a node's version back for sorting; a node drawn
// from a bundle without a semver version has none.
func parsedVersion(n Node) *semver.Version {
	v, err := semver.NewVersion(n.Version)
	if err != nil {
		return nil
	}
	return v
}

// newDeprecations lists what after deprecates that before did not.
func newDeprecations(before, after Graph) []Deprecation {
	var out []Deprecation
	if after.Package != "" && after.Deprecated != "" && before.Deprecated == "" {
		out = append(out, Deprecation{Scope: ScopePackage, Name: after.Package, Message: after.Deprecated})
	}
	oldCh := channelsByName(before)
	for _, ch := range after.Channels {
		if o := oldCh[ch.Name]; ch.Deprecated != "" && (o == nil || o.Deprecated == "") {
			out = append(out, Deprecation{Scope: ScopeChannel, Name: ch.Name, Message: ch.Deprecated})
		}
	}
	wasDeprecated := map[string]bool{}
	for _, ch := range before.Channels {
		for _, n := range ch.Nodes {
			wasDeprecated[n.Name] = wasDeprecated[n.Name] || n.Deprecated != ""
		}
	}
	seen := map[string]bool{}
	for _, ch := range after.Channels {
		for _, n := range ch.Nodes {
			if n.Deprecated == "" || wasDeprecated[n.Name] || seen[n.Name] {
				continue
			}
			seen[n.Name] = true
			out = append(out, Deprecation{Scope: ScopeBundle, Name: n.Name, Message: n.Deprecated})
		}
	}
	return out
}
