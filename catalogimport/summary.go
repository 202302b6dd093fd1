package catalogimport

import (
	"fmt"
	"slices"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
)

// Summary is what an import changed in a catalog folder: what a pull
// request for the import says.
type Summary struct {
	Catalog        string         `json:"catalog"`
	Image          string         `json:"image"`
	Digest         string         `json:"digest"`
	Dir            string         `json:"dir"`
	Packages       []string       `json:"packages"`
	Changed        bool           `json:"changed"`
	NewBundles     []BundleChange `json:"newBundles"`
	RemovedBundles []BundleChange `json:"removedBundles"`
	// RebuiltBundles kept their name and version but not their content
	// (a new image digest, say): clusters that run them would change.
	RebuiltBundles []BundleChange `json:"rebuiltBundles"`
	HeadMoves      []HeadMove     `json:"headMoves"`
	// Registered says the import added the catalog to olmops.yaml, which
	// lists catalogs and would otherwise have left it unused.
	Registered bool `json:"registered,omitempty"`
	// Base is the branch a proposed import is based on and proposed to.
	Base string `json:"base,omitempty"`
	// Proposal is where a --push import waits for review.
	Proposal *gitsource.Proposal `json:"proposal,omitempty"`
	// Held says why a --push import left its proposal branch alone: it
	// holds commits olmops did not make.
	Held string `json:"held,omitempty"`
	// Warnings are what the import noticed but did not stop for.
	Warnings []string `json:"warnings,omitempty"`
}

// BundleChange is a bundle that appeared in, left or changed in the
// catalog.
type BundleChange struct {
	Package string `json:"package"`
	Name    string `json:"name"`
	// Version is the bundle's version, or its name when it has none.
	Version string `json:"version"`
	// Detail says what changed in a rebuilt bundle.
	Detail string `json:"detail,omitempty"`
}

// HeadMove is a channel whose head changed. From is "" for a new channel,
// To "" for a removed one; heads are shown by version.
type HeadMove struct {
	Package string `json:"package"`
	Channel string `json:"channel"`
	From    string `json:"from"`
	To      string `json:"to"`
}

// String words the move as the summary prints it: "etcd: stable head 0.9.2 → 0.9.4".
func (h HeadMove) String() string {
	switch {
	case h.From == "":
		return fmt.Sprintf("%s: new channel %s, head %s", h.Package, h.Channel, h.To)
	case h.To == "":
		return fmt.Sprintf("%s: channel %s removed, head was %s", h.Package, h.Channel, h.From)
	}
	return fmt.Sprintf("%s: %s head %s → %s", h.Package, h.Channel, h.From, h.To)
}

// String is "package name (version)", and what changed in a rebuilt one.
func (b BundleChange) String() string {
	if b.Detail != "" {
		return fmt.Sprintf("%s %s (%s): %s", b.Package, b.Name, b.Version, b.Detail)
	}
	return fmt.Sprintf("%s %s (%s)", b.Package, b.Name, b.Version)
}

// diff fills the changes from prev (nil when the folder was empty) to next.
func (s *Summary) diff(prev, next *catalog.Catalog) {
	s.NewBundles, s.RemovedBundles, s.RebuiltBundles, s.HeadMoves = []BundleChange{}, []BundleChange{}, []BundleChange{}, []HeadMove{}
	for _, name := range union(packageNames(prev), next.PackageNames()) {
		p, n := packageOf(prev, name), packageOf(next, name)
		s.NewBundles = append(s.NewBundles, bundlesOnlyIn(n, p)...)
		s.RemovedBundles = append(s.RemovedBundles, bundlesOnlyIn(p, n)...)
		s.RebuiltBundles = append(s.RebuiltBundles, bundlesRebuilt(p, n)...)
		for _, ch := range union(channelNames(p), channelNames(n)) {
			fromName, from := headOf(p, ch)
			toName, to := headOf(n, ch)
			if fromName != toName || from != to {
				s.HeadMoves = append(s.HeadMoves, HeadMove{Package: name, Channel: ch, From: from, To: to})
			}
		}
	}
}

func union(a, b []string) []string {
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

func packageNames(c *catalog.Catalog) []string {
	if c == nil {
		return nil
	}
	return c.PackageNames()
}

func packageOf(c *catalog.Catalog, name string) *catalog.Package {
	if c == nil {
		return nil
	}
	return c.Packages[name]
}

func channelNames(p *catalog.Package) []string {
	if p == nil {
		return nil
	}
	return p.ChannelNames()
}

// headOf names the head of channel ch and labels it by version; a channel
// without a single head is labelled "none".
func headOf(p *catalog.Package, ch string) (name, label string) {
	if p == nil || p.Channels[ch] == nil {
		return "", ""
	}
	e, err := p.Channels[ch].Head()
	if err != nil {
		return "", "none"
	}
	return e.Name, bundleLabel(e.Bundle, e.Name)
}

func bundleLabel(b *catalog.Bundle, name string) string {
	if b == nil || b.Version == nil {
		return name
	}
	return b.Version.String()
}

// bundlesOnlyIn lists the bundles of a that b lacks, by version.
func bundlesOnlyIn(a, b *catalog.Package) []BundleChange {
	if a == nil {
		return nil
	}
	var bs []*catalog.Bundle
	for _, name := range a.BundleNames() {
		if b == nil || b.Bundles[name] == nil {
			bs = append(bs, a.Bundles[name])
		}
	}
	slices.SortStableFunc(bs, compareVersions)
	out := make([]BundleChange, len(bs))
	for i, x := range bs {
		out[i] = BundleChange{Package: a.Name, Name: x.Name, Version: bundleLabel(x, x.Name)}
	}
	return out
}

func mapStrings[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}
