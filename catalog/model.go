package catalog

import (
	"sort"

	"github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/property"
)

// Pos is a position in a catalog file.
type Pos = fbc.Pos

// Catalog is one file-based catalog.
type Catalog struct {
	// Name identifies the catalog to the resolver (a Subscription's source).
	Name string
	// Priority orders catalogs: higher is preferred.
	Priority int
	// Labels are the catalog's labels, which a ClusterExtension's catalog
	// selector matches; the resolver adds the name label of OLM v1
	// (olm.operatorframework.io/metadata.name) itself.
	Labels map[string]string
	// Namespaces, when set, restrict the catalog to these namespaces, as a
	// namespaced CatalogSource is; nil means global.
	Namespaces []string
	// Packages by name.
	Packages map[string]*Package
	// Others are the objects of schemas olmops does not model, kept as read.
	Others []fbc.Blob

	providers map[property.GVK][]*Bundle
	problems  []Problem
	warnings  []fbc.Warning
}

// Package is an operator package and everything the catalog says about it.
type Package struct {
	Catalog        *Catalog
	Pos            Pos
	Name           string
	DefaultChannel string
	Description    string
	Icon           *property.Value
	Properties     []property.Property
	// Channels by name.
	Channels map[string]*Channel
	// Bundles by name.
	Bundles map[string]*Bundle
	// Deprecation is nil unless an olm.deprecations blob names the package.
	Deprecation *Deprecation
}

// Channel is one channel of a package: an ordered list of entries with their
// upgrade edges.
type Channel struct {
	Package    *Package
	Pos        Pos
	Name       string
	Entries    []*Entry
	Properties []property.Property

	entries map[string]*Entry
}

// Entry is one entry of a channel. Bundle is nil when the catalog has no
// bundle by that name (a validation error, and no candidate to install).
type Entry struct {
	Channel   *Channel
	Pos       Pos
	Name      string
	Replaces  string
	Skips     []string
	SkipRange string
	Bundle    *Bundle
}

// Bundle is one installable version of a package.
type Bundle struct {
	Package       *Package
	Pos           Pos
	Name          string
	Image         string
	Properties    []property.Property
	RelatedImages []fbc.RelatedImage
	// Props is the typed view of Properties.
	Props property.Set
	// Version is the olm.package version; nil when missing or not semver.
	Version *semver.Version
	// Channels lists the channels with an entry for this bundle, by name.
	Channels []*Channel
}

// Deprecation holds the deprecation messages of a package and its parts.
type Deprecation struct {
	Pos Pos
	// Message deprecates the whole package; "" when only parts are.
	Message  string
	Channels map[string]string
	Bundles  map[string]string
}

// Problem is one finding about a catalog, with where it is and what it is
// about. Package, Channel and Bundle are set where they apply.
type Problem struct {
	Pos     Pos
	Package string
	Channel string
	Bundle  string
	Message string
	// Err is the underlying error, where there is one.
	Err error
}

func (p Problem) Error() string {
	if p.Pos.File == "" {
		return p.Message
	}
	return p.Pos.String() + ": " + p.Message
}

func (p Problem) Unwrap() error { return p.Err }

// PackageNames returns the names of the catalog's packages, sorted.
func (c *Catalog) PackageNames() []string {
	return sortedKeys(c.Packages)
}

// Bundle returns the named bundle of the named package, or nil.
func (c *Catalog) Bundle(pkg, name string) *Bundle {
	if p := c.Packages[pkg]; p != nil {
		return p.Bundles[name]
	}
	return nil
}

// Providers returns the bundles that provide gvk, in package then bundle
// name order.
func (c *Catalog) Providers(gvk property.GVK) []*Bundle {
	return c.providers[gvk]
}

// ChannelNames returns the package's channel names, sorted.
func (p *Package) ChannelNames() []string { return sortedKeys(p.Channels) }

// BundleNames returns the package's bundle names, sorted.
func (p *Package) BundleNames() []string { return sortedKeys(p.Bundles) }

// Entry returns the channel's entry for the named bundle, or nil.
func (ch *Channel) Entry(name string) *Entry { return ch.entries[name] }

// Deprecated returns the message deprecating the package, "" if none.
func (p *Package) Deprecated() string {
	if p.Deprecation == nil {
		return ""
	}
	return p.Deprecation.Message
}

// Deprecated returns the message deprecating the channel, "" if none.
func (ch *Channel) Deprecated() string {
	if d := ch.Package.Deprecation; d != nil {
		return d.Channels[ch.Name]
	}
	return ""
}

// Deprecated returns the message deprecating the bundle, "" if none.
func (b *Bundle) Deprecated() string {
	if d := b.Package.Deprecation; d != nil {
		return d.Bundles[b.Name]
	}
	return ""
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
