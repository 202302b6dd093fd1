package main

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/Masterminds/semver/v3"
	"github.com/spf13/cobra"

	"github.com/olmops/olmops/catalog"
	olmsemver "github.com/olmops/olmops/resolver/semver"
)

type graphOptions struct {
	streams
	Output  string
	Channel string
	Dir     string
	Package string
}

func newGraphCmd(s streams) *cobra.Command {
	opts := &graphOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "graph DIR PACKAGE",
		Short: "Draw the upgrade graph of a package",
		Long: `Graph draws the upgrade graph of PACKAGE in the catalog in DIR, one subgraph
per channel (or only --channel). Nodes are bundles (name and version); an edge
goes from a bundle to the one that upgrades it:

  replaces   solid line
  skips      dashed line
  skipRange  dotted line (the range evaluated against the versions of the
             channel's other entries)

The channel head is drawn bold; deprecated packages, channels and bundles are
marked, and bundles an edge names that the channel does not hold are drawn as
"missing". Output is Mermaid (default) or Graphviz DOT.`,
		Example: `  olmops graph catalogs/operatorhub etcd
  olmops graph catalogs/operatorhub etcd --channel stable -o dot | dot -Tsvg > etcd.svg`,
		Args: args(cobra.ExactArgs(2)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Dir, opts.Package = a[0], a[1]
			return graphRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "mermaid", "output format: mermaid or dot")
	cmd.Flags().StringVar(&opts.Channel, "channel", "", "draw only this channel (default: every channel)")
	return cmd
}

func graphRun(ctx context.Context, opts *graphOptions) error {
	if err := oneOf("output", opts.Output, "mermaid", "dot"); err != nil {
		return err
	}
	c, err := loadCatalog(ctx, opts.Dir)
	if err != nil {
		return err
	}
	p := c.Packages[opts.Package]
	if p == nil {
		return fmt.Errorf("package %q not found in catalog %s", opts.Package, opts.Dir)
	}
	if opts.Channel != "" && p.Channels[opts.Channel] == nil {
		return fmt.Errorf("channel %q not found in package %q (channels: %v)", opts.Channel, p.Name, p.ChannelNames())
	}
	g := buildGraph(p, opts.Channel)
	if opts.Output == "dot" {
		return writeDOT(opts.Out, g)
	}
	return writeMermaid(opts.Out, g)
}

// upgradeGraph is the upgrade graph of one package, channel by channel.
type upgradeGraph struct {
	Package    string
	Deprecated string
	Channels   []channelGraph
}

// channelGraph is the graph of one channel. Nodes are ordered oldest first
// (by version, then name; missing nodes last), edges by their endpoints.
type channelGraph struct {
	Name       string
	Default    bool
	Deprecated string
	HeadErr    string
	Nodes      []graphNode
	Edges      []graphEdge
}

type graphNode struct {
	Name       string
	Version    string
	Head       bool
	Deprecated string
	// Missing marks a bundle an edge names that is no entry of the channel.
	Missing bool
}

type edgeKind int

const (
	edgeReplaces edgeKind = iota
	edgeSkips
	edgeSkipRange
)

func (k edgeKind) String() string {
	return [...]string{"replaces", "skips", "skipRange"}[k]
}

// graphEdge goes in the upgrade direction: From is upgraded to To.
type graphEdge struct {
	From, To int // indexes into channelGraph.Nodes
	Kind     edgeKind
}

// buildGraph builds the graph of every channel of p, or only of the named one.
func buildGraph(p *catalog.Package, only string) upgradeGraph {
	g := upgradeGraph{Package: p.Name, Deprecated: p.Deprecated()}
	for _, cn := range p.ChannelNames() {
		if only != "" && cn != only {
			continue
		}
		g.Channels = append(g.Channels, buildChannelGraph(p.Channels[cn]))
	}
	return g
}

func buildChannelGraph(ch *catalog.Channel) channelGraph {
	cg := channelGraph{Name: ch.Name, Default: ch.Name == ch.Package.DefaultChannel, Deprecated: ch.Deprecated()}
	head, err := ch.Head()
	if err != nil {
		cg.HeadErr = err.Error()
	}
	type rawEdge struct {
		from, to string
		kind     edgeKind
	}
	var raw []rawEdge
	versions := map[string]*semver.Version{}
	for _, e := range ch.Entries {
		n := graphNode{Name: e.Name, Head: head == e}
		if b := e.Bundle; b != nil {
			n.Deprecated = b.Deprecated()
			if b.Version != nil {
				n.Version = b.Version.String()
				versions[e.Name] = b.Version
			}
		}
		cg.Nodes = append(cg.Nodes, n)
		if e.Replaces != "" {
			raw = append(raw, rawEdge{e.Replaces, e.Name, edgeReplaces})
		}
		for _, s := range e.Skips {
			raw = append(raw, rawEdge{s, e.Name, edgeSkips})
		}
	}
	for _, e := range ch.Entries {
		for _, from := range skipRangeCovers(e, ch.Entries) {
			raw = append(raw, rawEdge{from, e.Name, edgeSkipRange})
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
			cg.Nodes = append(cg.Nodes, graphNode{Name: r.from, Missing: true})
		}
	}
	slices.SortStableFunc(cg.Nodes, func(a, b graphNode) int {
		if a.Missing != b.Missing {
			if a.Missing {
				return 1
			}
			return -1
		}
		va, vb := versions[a.Name], versions[b.Name]
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
	index := make(map[string]int, len(cg.Nodes))
	for i, n := range cg.Nodes {
		index[n.Name] = i
	}
	seen := map[graphEdge]bool{}
	for _, r := range raw {
		e := graphEdge{From: index[r.from], To: index[r.to], Kind: r.kind}
		if !seen[e] {
			seen[e] = true
			cg.Edges = append(cg.Edges, e)
		}
	}
	slices.SortFunc(cg.Edges, func(a, b graphEdge) int {
		return cmp.Or(cmp.Compare(a.To, b.To), cmp.Compare(a.From, b.From), cmp.Compare(a.Kind, b.Kind))
	})
	return cg
}

// skipRangeCovers returns the other entries of the channel whose bundle
// version e's skipRange covers, in entry order, with the classic range
// semantics the resolver evaluates skipRange with.
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
