package graph

import (
	"cmp"
	"slices"

	"github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog"
	olmsemver "github.com/olmops/olmops/catalog/semver"
)

// Graph is the upgrade graph of one package, channel by channel.
type Graph struct {
	Package string
	// Deprecated is the message deprecating the package, "" if none.
	Deprecated string
	// Channels are ordered by name.
	Channels []Channel
	// FoldedEdges counts the skipRange edges Fit folded into node labels.
	FoldedEdges int
	// OmittedChannels counts the channels Fit left out entirely.
	OmittedChannels int
}

// Channel is the graph of one channel. Nodes are ordered oldest first (by
// version, then name; missing nodes last), edges by their endpoints.
type Channel struct {
	Name string
	// Default is true for the package's default channel.
	Default bool
	// Deprecated is the message deprecating the channel, "" if none.
	Deprecated string
	// HeadErr says why the channel has no single head, "" when it has one.
	HeadErr string
	Nodes   []Node
	Edges   []Edge
	// Omitted counts the channel's nodes Around (or a diff's drawing) left
	// out; they are drawn as one "… N more" note.
	Omitted int
	// Change is set on the channels of a diff's merged graph.
	Change Change
}

// Node is one bundle of a channel.
type Node struct {
	// Name is the bundle's name.
	Name string
	// Version is the bundle's version, "" when it has none.
	Version string
	// Head marks the channel head.
	Head bool
	// Deprecated is the message deprecating the bundle, "" if none.
	Deprecated string
	// Missing marks a bundle an edge names that is no entry of the channel.
	Missing bool
	// Path marks a bundle of the upgrade path set by Mark.
	Path bool
	// Installed marks the installed bundle set by Mark.
	Installed bool
	// Change is set on the nodes of a diff's merged graph.
	Change Change
	// FoldedSkipRange counts the skipRange edges into this node that Fit
	// left undrawn; the label says how many.
	FoldedSkipRange int
}

// EdgeKind is the field of a channel entry that makes an edge.
type EdgeKind int

// The edge kinds, in the order edges between the same two nodes are listed.
const (
	// Replaces: the entry names the bundle it replaces.
	Replaces EdgeKind = iota
	// Skips: the entry lists the bundle in skips.
	Skips
	// SkipRange: the entry's skipRange covers the bundle's version
	// (classic range semantics, as the resolver evaluates it).
	SkipRange
)

// String returns the FBC field name of the kind.
func (k EdgeKind) String() string {
	switch k {
	case Replaces:
		return "replaces"
	case Skips:
		return "skips"
	case SkipRange:
		return "skipRange"
	}
	return "unknown"
}

// Edge goes in the upgrade direction: From is upgraded to To.
type Edge struct {
	// From and To index the channel's Nodes.
	From, To int
	Kind     EdgeKind
	// Path marks an edge between consecutive bundles of the path set by Mark.
	Path bool
	// Change is set on the edges of a diff's merged graph.
	Change Change
}

// Change says how a diff sees a channel, node or edge.
type Change int

// The changes; the zero value is Unchanged.
const (
	Unchanged Change = iota
	// Added is only in the new graph.
	Added
	// Removed is only in the old graph (or, for a node, is an entry no more).
	Removed
)

// Build builds the graph of every channel of p, or only of the named
// channel ("" for all). An unknown channel gives a graph without channels.
func Build(p *catalog.Package, channel string) Graph {
	g := Graph{Package: p.Name, Deprecated: p.Deprecated()}
	for _, cn := range p.ChannelNames() {
		if channel != "" && cn != channel {
			continue
		}
		g.Channels = append(g.Channels, buildChannel(p.Channels[cn]))
	}
	return g
}

type namedEdge struct {
	from, to string
	kind     EdgeKind
}

func buildChannel(ch *catalog.Channel) Channel {
	cg := Channel{Name: ch.Name, Default: ch.Name == ch.Package.DefaultChannel, Deprecated: ch.Deprecated()}
	head, err := ch.Head()
	if err != nil {
		cg.HeadErr = err.Error()
	}
	var raw []namedEdge
	versions := map[string]*semver.Version{}
	for _, e := range ch.Entries {
		n := Node{Name: e.Name, Head: head == e}
		if b := e.Bundle; b != nil {
			n.Deprecated = b.Deprecated()
			if b.Version != nil {
				n.Version = b.Version.String()
				versions[e.Name] = b.Version
			}
		}
		cg.Nodes = append(cg.Nodes, n)
		if e.Replaces != "" {
			raw = append(raw, namedEdge{e.Replaces, e.Name, Replaces})
		}
		for _, s := range e.Skips {
			raw = append(raw, namedEdge{s, e.Name, Skips})
		}
	}
	for _, e := range ch.Entries {
		for _, from := range skipRangeCovers(e, ch.Entries) {
			raw = append(raw, namedEdge{from, e.Name, SkipRange})
		}
	}
	// Bundles named by an edge but not in the channel become missing nodes.
	known := map[string]bool{}
	for _, n := range cg.Nodes {
		known[n.Name] = true
	}
	for _, r := range raw {
		if !known[r.from] {
			known[r.from] = true
			cg.Nodes = append(cg.Nodes, Node{Name: r.from, Missing: true})
		}
	}
	sortNodes(cg.Nodes, func(n Node) *semver.Version { return versions[n.Name] })
	cg.Edges = indexEdges(cg.Nodes, raw)
	return cg
}

// sortNodes orders nodes oldest first: entries before missing nodes, then
// by version (nodes without one after those with), then by name.
func sortNodes(nodes []Node, version func(Node) *semver.Version) {
	slices.SortStableFunc(nodes, func(a, b Node) int {
		if a.Missing != b.Missing {
			if a.Missing {
				return 1
			}
			return -1
		}
		va, vb := version(a), version(b)
		switch {
		case va != nil && vb != nil:
			if c := va.Compare(vb); c != 0 {
				return c
			}
		case va != nil:
			return -1
		case vb != nil:
			return 1
		}
		return cmp.Compare(a.Name, b.Name)
	})
}

// indexEdges turns named edges into edges between nodes, dropping
// duplicates, sorted by target, then source, then kind.
func indexEdges(nodes []Node, named []namedEdge) []Edge {
	index := make(map[string]int, len(nodes))
	for i, n := range nodes {
		index[n.Name] = i
	}
	seen := map[Edge]bool{}
	var edges []Edge
	for _, r := range named {
		e := Edge{From: index[r.from], To: index[r.to], Kind: r.kind}
		if !seen[e] {
			seen[e] = true
			edges = append(edges, e)
		}
	}
	sortEdges(edges)
	return edges
}

func sortEdges(edges []Edge) {
	slices.SortFunc(edges, func(a, b Edge) int {
		return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.From, b.From), cmp.Compare(a.Kind, b.Kind))
	})
}

// skipRangeCovers returns the other entries of the channel whose bundle
// version e's skipRange covers, in entry order, with the classic range
// semantics the resolver evaluates skipRange with. A range that does not
// parse covers nothing: validation reports it, the drawing shows no edge.
func skipRangeCovers(e *catalog.Entry, entries []*catalog.Entry) []string {
	if e.SkipRange == "" {
		return nil
	}
	rng, err := olmsemver.ParseClassicRange(e.SkipRange)
	if err != nil {
		return nil
	}
	var out []string
	for _, o := range entries {
		if o == e || o.Bundle == nil || o.Bundle.Version == nil {
			continue
		}
		if rng.Contains(o.Bundle.Version) {
			out = append(out, o.Name)
		}
	}
	return out
}
