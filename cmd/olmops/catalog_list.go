package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	yaml "go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
)

// listKinds are what catalog list can list.
var listKinds = []string{"packages", "channels", "bundles"}

type catalogListOptions struct {
	streams
	Output  string
	Kind    string
	Dir     string
	Package string
}

func newCatalogListCmd(s streams) *cobra.Command {
	opts := &catalogListOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "list packages|channels|bundles DIR [PACKAGE]",
		Short: "List the packages, channels or bundles of a catalog",
		Long: `List prints the packages, channels or bundles of the catalog in DIR with the
columns of opm alpha list, optionally only those of PACKAGE.

  packages: NAME DISPLAY NAME DEFAULT CHANNEL
  channels: PACKAGE CHANNEL HEAD
  bundles:  PACKAGE CHANNEL BUNDLE REPLACES SKIPS SKIP RANGE IMAGE`,
		Example: `  olmops catalog list channels catalogs/operatorhub
  olmops catalog list bundles catalogs/operatorhub etcd -o json`,
		Args:              args(cobra.RangeArgs(2, 3)),
		ValidArgsFunction: completeListArgs,
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Kind, opts.Dir = a[0], a[1]
			if len(a) == 3 {
				opts.Package = a[2]
			}
			return catalogListRun(cmd.Context(), opts)
		},
	}
	addOutputFlag(cmd, &opts.Output, "text", "json", "yaml")
	return cmd
}

// The rows of each listing; the JSON form is an array of them.
type (
	packageRow struct {
		Name           string `json:"name"`
		DisplayName    string `json:"displayName"`
		DefaultChannel string `json:"defaultChannel"`
	}
	channelRow struct {
		Package string `json:"package"`
		Channel string `json:"channel"`
		Head    string `json:"head"`
		Error   string `json:"error,omitempty"`
	}
	bundleRow struct {
		Package   string   `json:"package"`
		Channel   string   `json:"channel"`
		Bundle    string   `json:"bundle"`
		Replaces  string   `json:"replaces"`
		Skips     []string `json:"skips"`
		SkipRange string   `json:"skipRange"`
		Image     string   `json:"image"`
	}
)

func catalogListRun(ctx context.Context, opts *catalogListOptions) error {
	if err := oneOf("output", opts.Output, "text", "json", "yaml"); err != nil {
		return err
	}
	if !slices.Contains(listKinds, opts.Kind) {
		return usageErrorf("cannot list %q: want one of %v", opts.Kind, listKinds)
	}
	c, err := loadCatalog(ctx, opts.Dir)
	if err != nil {
		return err
	}
	pkgs, err := selectPackages(c, opts.Package)
	if err != nil {
		return err
	}
	var l listing
	switch opts.Kind {
	case "packages":
		l = packageListing(pkgs)
	case "channels":
		l = channelListing(pkgs)
	case "bundles":
		l = bundleListing(pkgs)
	}
	if structured(opts.Output) {
		return encode(opts.Out, opts.Output, l.rows)
	}
	return l.writeTable(opts.Out)
}

// listing is what catalog list prints: rows for JSON, cells for the table.
type listing struct {
	rows   any
	header []string
	cells  [][]string
}

// writeTable aligns columns the way opm alpha list does.
func (l listing) writeTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(l.header, "\t"))
	for _, c := range l.cells {
		fmt.Fprintln(tw, strings.Join(c, "\t"))
	}
	return tw.Flush()
}

// selectPackages returns the named package, or every package sorted by name.
func selectPackages(c *catalog.Catalog, name string) ([]*catalog.Package, error) {
	if name != "" {
		p := c.Packages[name]
		if p == nil {
			return nil, fmt.Errorf("package %q not found in catalog %s", name, c.Name)
		}
		return []*catalog.Package{p}, nil
	}
	out := make([]*catalog.Package, 0, len(c.Packages))
	for _, n := range c.PackageNames() {
		out = append(out, c.Packages[n])
	}
	return out, nil
}

func packageListing(pkgs []*catalog.Package) listing {
	l := listing{header: []string{"NAME", "DISPLAY NAME", "DEFAULT CHANNEL"}}
	rows := make([]packageRow, 0, len(pkgs))
	for _, p := range pkgs {
		r := packageRow{Name: p.Name, DisplayName: displayName(p), DefaultChannel: p.DefaultChannel}
		rows = append(rows, r)
		l.cells = append(l.cells, []string{r.Name, r.DisplayName, r.DefaultChannel})
	}
	l.rows = rows
	return l
}

// channelListing lists channels by package, then channel name, as opm does.
// A channel without a single head shows the error in the HEAD column.
func channelListing(pkgs []*catalog.Package) listing {
	l := listing{header: []string{"PACKAGE", "CHANNEL", "HEAD"}}
	rows := []channelRow{}
	for _, p := range pkgs {
		for _, cn := range p.ChannelNames() {
			r := channelRow{Package: p.Name, Channel: cn}
			head, err := p.Channels[cn].Head()
			if err != nil {
				r.Error = err.Error()
			} else {
				r.Head = head.Name
			}
			rows = append(rows, r)
			cell := r.Head
			if err != nil {
				cell = "ERROR: " + r.Error
			}
			l.cells = append(l.cells, []string{r.Package, r.Channel, cell})
		}
	}
	l.rows = rows
	return l
}

// bundleListing lists one row per channel entry, by package, channel, then
// bundle name: the order opm alpha list bundles sorts in.
func bundleListing(pkgs []*catalog.Package) listing {
	l := listing{header: []string{"PACKAGE", "CHANNEL", "BUNDLE", "REPLACES", "SKIPS", "SKIP RANGE", "IMAGE"}}
	rows := []bundleRow{}
	for _, p := range pkgs {
		for _, cn := range p.ChannelNames() {
			ch := p.Channels[cn]
			start := len(rows)
			for _, e := range ch.Entries {
				row := bundleRow{Package: p.Name, Channel: cn, Bundle: e.Name, Replaces: e.Replaces, Skips: e.Skips, SkipRange: e.SkipRange}
				if row.Skips == nil {
					row.Skips = []string{}
				}
				if e.Bundle != nil {
					row.Image = e.Bundle.Image
				}
				rows = append(rows, row)
			}
			slices.SortStableFunc(rows[start:], func(a, b bundleRow) int { return strings.Compare(a.Bundle, b.Bundle) })
		}
	}
	for _, r := range rows {
		l.cells = append(l.cells, []string{r.Package, r.Channel, r.Bundle, r.Replaces, strings.Join(r.Skips, ","), r.SkipRange, r.Image})
	}
	l.rows = rows
	return l
}

// displayName is the display name of the package's default channel head:
// from its olm.csv.metadata property, else from the ClusterServiceVersion
// among its olm.bundle.object manifests; "" when there is none.
func displayName(p *catalog.Package) string {
	ch := p.Channels[p.DefaultChannel]
	if ch == nil {
		return ""
	}
	head, err := ch.Head()
	if err != nil || head.Bundle == nil {
		return ""
	}
	b := head.Bundle
	if i := b.Props.CSVMetadata; i >= 0 && i < len(b.Properties) {
		var md struct {
			DisplayName string `json:"displayName"`
		}
		if b.Properties[i].Value.Decode(&md) == nil && md.DisplayName != "" {
			return md.DisplayName
		}
	}
	for _, i := range b.Props.BundleObjects {
		if i < 0 || i >= len(b.Properties) {
			continue
		}
		data, err := property.DecodeBundleObject(b.Properties[i].Value)
		if err != nil {
			continue
		}
		var csv struct {
			Kind string `yaml:"kind"`
			Spec struct {
				DisplayName string `yaml:"displayName"`
			} `yaml:"spec"`
		}
		// YAML reads both JSON and YAML manifests.
		if yaml.Unmarshal(data, &csv) == nil && csv.Kind == "ClusterServiceVersion" {
			return csv.Spec.DisplayName
		}
	}
	return ""
}
