package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/catalog/graph"
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
	addOutputFlag(cmd, &opts.Output, "mermaid", "dot")
	cmd.Flags().StringVar(&opts.Channel, "channel", "", "draw only this channel (default: every channel)")
	cmd.ValidArgsFunction = completeGraphArgs
	_ = cmd.RegisterFlagCompletionFunc("channel", completeChannels(
		func(_ *cobra.Command, a []string) []string { return a[:min(len(a), 1)] },
		func(_ *cobra.Command, a []string) string {
			if len(a) < 2 {
				return ""
			}
			return a[1]
		}))
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
	g := graph.Build(p, opts.Channel)
	if opts.Output == "dot" {
		return g.DOT(opts.Out)
	}
	return g.Mermaid(opts.Out)
}
