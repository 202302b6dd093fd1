package catalog

import (
	"context"
	"fmt"
	"sort"

	"github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/property"
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
func New(name string, cfg *fbc.Config) *Catalog {
	c := &Catalog{Name: name, Packages: map[string]*Package{}, Others: cfg.Others}
	for _, fp := range cfg.Packages {
		c.addPackage(fp)
	}
	for _, fb := range cfg.Bundles {
		c.addBundle(fb)
	}
	for _, fch := range cfg.Channels {
		c.addChannel(fch)
	}
	for _, fd := range cfg.Deprecations {
		c.addDeprecation(fd)
	}
	c.index()
	return c
}

func (c *Catalog) problem(p Problem) { c.problems = append(c.problems, p) }

func (c *Catalog) addPackage(fp fbc.Package) {
	if prev, ok := c.Packages[fp.Name]; ok {
		c.problem(Problem{Pos: fp.Pos, Package: fp.Name, Message: fmt.Sprintf("duplicate package %q (first defined at %s)", fp.Name, prev.Pos)})
		return
	}
	c.Packages[fp.Name] = &Package{
		Catalog: c, Pos: fp.Pos, Name: fp.Name, DefaultChannel: fp.DefaultChannel,
		Description: fp.Description, Icon: fp.Icon, Properties: fp.Properties,
		Channels: map[string]*Channel{}, Bundles: map[string]*Bundle{},
	}
}

func (c *Catalog) pkg(name string, pos Pos, what string) *Package {
	p := c.Packages[name]
	if p == nil {
		c.problem(Problem{Pos: pos, Package: name, Message: fmt.Sprintf("unknown package %q for %s", name, what)})
	}
	return p
}

func (c *Catalog) addBundle(fb fbc.Bundle) {
	p := c.pkg(fb.Package, fb.Pos, fmt.Sprintf("bundle %q", fb.Name))
	if p == nil {
		return
	}
	if prev, ok := p.Bundles[fb.Name]; ok {
		c.problem(Problem{Pos: fb.Pos, Package: p.Name, Bundle: fb.Name, Message: fmt.Sprintf("package %q has duplicate bundle %q (first defined at %s)", p.Name, fb.Name, prev.Pos)})
		return
	}
	b := &Bundle{Package: p, Pos: fb.Pos, Name: fb.Name, Image: fb.Image, Properties: fb.Properties, RelatedImages: fb.RelatedImages}
	var errs []error
	b.Props, errs = property.Parse(fb.Properties)
	for _, err := range errs {
		c.problem(Problem{Pos: fb.Pos, Package: p.Name, Bundle: fb.Name, Message: err.Error(), Err: err})
	}
	if len(b.Props.Packages) == 1 {
		if v, err := semver.StrictNewVersion(b.Props.Packages[0].Version); err == nil {
			b.Version = v
		}
	}
	p.Bundles[fb.Name] = b
}

func (c *Catalog) addChannel(fch fbc.Channel) {
	p := c.pkg(fch.Package, fch.Pos, fmt.Sprintf("channel %q", fch.Name))
	if p == nil {
		return
	}
	if prev, ok := p.Channels[fch.Name]; ok {
		c.problem(Problem{Pos: fch.Pos, Package: p.Name, Channel: fch.Name, Message: fmt.Sprintf("package %q has duplicate channel %q (first defined at %s)", p.Name, fch.Name, prev.Pos)})
		return
	}
	ch := &Channel{Package: p, Pos: fch.Pos, Name: fch.Name, Properties: fch.Properties, entries: map[string]*Entry{}}
	for _, fe := range fch.Entries {
		if _, dup := ch.entries[fe.Name]; dup {
			c.problem(Problem{Pos: fe.Pos, Package: p.Name, Channel: ch.Name, Bundle: fe.Name, Message: fmt.Sprintf("duplicate entry %q in channel %q", fe.Name, ch.Name)})
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

func (c *Catalog) addDeprecation(fd fbc.Deprecation) {
	p := c.pkg(fd.Package, fd.Pos, "deprecations")
	if p == nil {
		return
	}
	if p.Deprecation != nil {
		c.problem(Problem{Pos: fd.Pos, Package: p.Name, Message: fmt.Sprintf("package %q has more than one olm.deprecations blob (first at %s)", p.Name, p.Deprecation.Pos)})
		return
	}
	d := &Deprecation{Pos: fd.Pos, Channels: map[string]string{}, Bundles: map[string]string{}}
	for _, e := range fd.Entries {
		switch e.Schema {
		case fbc.SchemaPackage:
			d.Message = e.Message
		case fbc.SchemaChannel:
			d.Channels[e.Name] = e.Message
		case fbc.SchemaBundle:
			d.Bundles[e.Name] = e.Message
		}
	}
	p.Deprecation = d
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
