package catalog

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/property"
	olmsemver "github.com/olmops/olmops/catalog/semver"
)

// LoadDir loads and models the catalog in dir, named after dir's base name.
// The error reports files that could not be read or decoded; a catalog that
// decodes but breaks opm's rules loads, and Validate lists what is wrong.
func LoadDir(ctx context.Context, dir, name string) (*Catalog, error) {
	cfg, err := fbc.LoadDir(ctx, dir)
	if err != nil {
		return nil, err
	}
	return New(name, cfg), nil
}

// New builds the model of a catalog from its file objects. It never fails:
// what does not fit the model is recorded as a problem (see Validate), and
// the first of several duplicates wins.
//
// The rules checked here are those opm applies while converting a
// declarative config to its model (alpha/declcfg ConvertToModel), worded as
// opm words them; Validate adds the rules of opm's model validation.
func New(name string, cfg *fbc.Config) *Catalog {
	c := &Catalog{Name: name, Packages: map[string]*Package{}, Others: cfg.Others, warnings: cfg.Warnings}
	for _, fp := range cfg.Packages {
		c.addPackage(fp)
	}
	for _, fb := range cfg.Bundles {
		c.addBundle(fb)
	}
	for _, fch := range cfg.Channels {
		c.addChannel(fch)
	}
	for i, fd := range cfg.Deprecations {
		c.addDeprecation(i, fd)
	}
	c.index()
	return c
}

func (c *Catalog) problem(p Problem) { c.problems = append(c.problems, p) }

func (c *Catalog) problemf(pos Pos, pkg, ch, bundle, format string, args ...any) {
	c.problem(Problem{Pos: pos, Package: pkg, Channel: ch, Bundle: bundle, Message: fmt.Sprintf(format, args...)})
}

func (c *Catalog) addPackage(fp fbc.Package) {
	if fp.Name == "" {
		c.problemf(fp.Pos, "", "", "", "config contains package with no name")
		return
	}
	if prev, ok := c.Packages[fp.Name]; ok {
		c.problemf(fp.Pos, fp.Name, "", "", "duplicate package %q (first defined at %s)", fp.Name, prev.Pos)
		return
	}
	if errs := dns1123Label(fp.Name); len(errs) > 0 {
		c.problemf(fp.Pos, fp.Name, "", "", "invalid package name %q: %v", fp.Name, errs)
	}
	c.Packages[fp.Name] = &Package{
		Catalog: c, Pos: fp.Pos, Name: fp.Name, DefaultChannel: fp.DefaultChannel,
		Description: fp.Description, Icon: fp.Icon, Properties: fp.Properties,
		Channels: map[string]*Channel{}, Bundles: map[string]*Bundle{},
	}
}

func (c *Catalog) addBundle(fb fbc.Bundle) {
	if fb.Package == "" {
		c.problemf(fb.Pos, "", "", fb.Name, "package name must be set for bundle %q", fb.Name)
		return
	}
	p := c.Packages[fb.Package]
	if p == nil {
		c.problemf(fb.Pos, fb.Package, "", fb.Name, "unknown package %q for bundle %q", fb.Package, fb.Name)
		return
	}
	if prev, ok := p.Bundles[fb.Name]; ok {
		c.problemf(fb.Pos, p.Name, "", fb.Name, "package %q has duplicate bundle %q (first defined at %s)", p.Name, fb.Name, prev.Pos)
		return
	}
	b := &Bundle{Package: p, Pos: fb.Pos, Name: fb.Name, Image: fb.Image, Properties: fb.Properties, RelatedImages: fb.RelatedImages}
	b.Props, _ = property.Parse(fb.Properties)
	c.propertyProblems(b)
	switch n := len(b.Props.Packages); {
	case n != 1:
		c.problemf(b.Pos, p.Name, "", b.Name, "package %q bundle %q must have exactly 1 %q property, found %d", p.Name, b.Name, property.TypePackage, n)
	case b.Props.Packages[0].PackageName != p.Name:
		c.problemf(b.Pos, p.Name, "", b.Name, "package %q does not match %q property %q", p.Name, property.TypePackage, b.Props.Packages[0].PackageName)
	default:
		raw := b.Props.Packages[0].Version
		if err := olmsemver.CheckVersion(raw); err != nil {
			c.problem(Problem{Pos: b.Pos, Package: p.Name, Bundle: b.Name, Err: err,
				Message: fmt.Sprintf("error parsing bundle %q version %q: %v", b.Name, raw, err)})
		} else if v, err := semver.StrictNewVersion(raw); err == nil {
			b.Version = v
		}
	}
	p.Bundles[fb.Name] = b
}

// propertyProblems reports each property of b that does not parse, worded
// as opm words it (with the property's index in the list).
func (c *Catalog) propertyProblems(b *Bundle) {
	for _, e := range b.Props.Invalid {
		pos := e.Pos
		if pos.File == "" {
			pos = b.Pos
		}
		c.problem(Problem{Pos: pos, Package: b.Package.Name, Bundle: b.Name, Err: e,
			Message: fmt.Sprintf("parse properties for bundle %q: parse property[%d] of type %q: %v", b.Name, e.Index, e.Type, e.Err)})
	}
}

func (c *Catalog) addChannel(fch fbc.Channel) {
	p := c.Packages[fch.Package]
	if p == nil {
		c.problemf(fch.Pos, fch.Package, fch.Name, "", "unknown package %q for channel %q", fch.Package, fch.Name)
		return
	}
	if fch.Name == "" {
		c.problemf(fch.Pos, p.Name, "", "", "package %q contains channel with no name", p.Name)
		return
	}
	if prev, ok := p.Channels[fch.Name]; ok {
		c.problemf(fch.Pos, p.Name, fch.Name, "", "package %q has duplicate channel %q (first defined at %s)", p.Name, fch.Name, prev.Pos)
		return
	}
	ch := &Channel{Package: p, Pos: fch.Pos, Name: fch.Name, Properties: fch.Properties, entries: map[string]*Entry{}}
	for _, fe := range fch.Entries {
		if _, dup := ch.entries[fe.Name]; dup {
			c.problemf(fe.Pos, p.Name, ch.Name, fe.Name, "invalid package %q, channel %q: duplicate entry %q", p.Name, ch.Name, fe.Name)
			continue
		}
		e := &Entry{Channel: ch, Pos: fe.Pos, Name: fe.Name, Replaces: fe.Replaces, Skips: fe.Skips, SkipRange: fe.SkipRange, Bundle: p.Bundles[fe.Name]}
		if e.Bundle != nil {
			e.Bundle.Channels = append(e.Bundle.Channels, ch)
		}
		ch.Entries = append(ch.Entries, e)
		ch.entries[fe.Name] = e
	}
	p.Channels[fch.Name] = ch
}

// packageScopedRef prints a deprecation reference the way opm does (Go
// syntax of its declcfg.PackageScopedReference).
func packageScopedRef(e fbc.DeprecationEntry) string {
	return fmt.Sprintf("declcfg.PackageScopedReference{Schema:%q, Name:%q}", e.Schema, e.Name)
}

func (c *Catalog) addDeprecation(i int, fd fbc.Deprecation) {
	if fd.Package == "" {
		c.problemf(fd.Pos, "", "", "", "package name must be set for deprecation item %d", i)
		return
	}
	p := c.Packages[fd.Package]
	if p == nil {
		c.problemf(fd.Pos, fd.Package, "", "", "cannot apply deprecations to an unknown package %q", fd.Package)
		return
	}
	if p.Deprecation != nil {
		c.problemf(fd.Pos, p.Name, "", "", "expected a maximum of one deprecation per package: %q (first at %s)", p.Name, p.Deprecation.Pos)
		return
	}
	d := &Deprecation{Pos: fd.Pos, Channels: map[string]string{}, Bundles: map[string]string{}}
	seen := map[[2]string]bool{}
	for j, e := range fd.Entries {
		pos := e.Pos
		if pos.File == "" {
			pos = fd.Pos
		}
		if e.Schema == "" {
			c.problemf(pos, p.Name, "", "", "schema must be set for deprecation entry [%d] for package %q", j, p.Name)
			continue
		}
		key := [2]string{e.Schema, e.Name}
		if seen[key] {
			c.problemf(pos, p.Name, "", "", "duplicate deprecation entry %s for package %q", packageScopedRef(e), p.Name)
			continue
		}
		seen[key] = true
		switch e.Schema {
		case fbc.SchemaBundle:
			if p.Bundles[e.Name] == nil {
				c.problemf(pos, p.Name, "", e.Name, "cannot deprecate bundle %q for package %q: bundle not found", e.Name, p.Name)
				continue
			}
			c.deprecationMessage(pos, p.Name, "", e.Name, e.Message)
			d.Bundles[e.Name] = e.Message
		case fbc.SchemaChannel:
			if p.Channels[e.Name] == nil {
				c.problemf(pos, p.Name, e.Name, "", "cannot deprecate channel %q for package %q: channel not found", e.Name, p.Name)
				continue
			}
			c.deprecationMessage(pos, p.Name, e.Name, "", e.Message)
			d.Channels[e.Name] = e.Message
		case fbc.SchemaPackage:
			if e.Name != "" {
				c.problemf(pos, p.Name, "", "", "package name must be empty for deprecated package %q (specified %q)", p.Name, e.Name)
				continue
			}
			c.deprecationMessage(pos, p.Name, "", "", e.Message)
			d.Message = e.Message
		default:
			c.problemf(pos, p.Name, "", "", "cannot deprecate object %s referenced by entry %d for package %q: object schema unknown", packageScopedRef(e), j, p.Name)
		}
	}
	p.Deprecation = d
}

// deprecationMessage reports a deprecation without a message, under the
// object it deprecates, as opm's model validation does.
func (c *Catalog) deprecationMessage(pos Pos, pkg, ch, bundle, msg string) {
	if msg != "" {
		return
	}
	scope := scopeOf(pkg, ch, bundle)
	c.problemf(pos, pkg, ch, bundle, "%sinvalid deprecation: message must be set", scope)
}

// scopeOf renders the path opm's validation error tree puts before a model
// problem: invalid package "p": invalid channel "c": invalid bundle "b": .
func scopeOf(pkg, ch, bundle string) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "invalid package %q: ", pkg)
	if ch != "" {
		fmt.Fprintf(&sb, "invalid channel %q: ", ch)
	}
	if bundle != "" {
		fmt.Fprintf(&sb, "invalid bundle %q: ", bundle)
	}
	return sb.String()
}

// index builds the lookups the resolver uses; all of them are ordered so
// that every walk over them is deterministic.
func (c *Catalog) index() {
	c.providers = map[property.GVK][]*Bundle{}
	for _, pn := range c.PackageNames() {
		p := c.Packages[pn]
		for _, bn := range p.BundleNames() {
			b := p.Bundles[bn]
			sort.Slice(b.Channels, func(i, j int) bool { return b.Channels[i].Name < b.Channels[j].Name })
			for _, g := range b.Props.GVKs {
				c.providers[g] = append(c.providers[g], b)
			}
		}
	}
}
