package review

import (
	"encoding/json"
	"io/fs"
	"reflect"
	"slices"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/graph"
	"github.com/olmops/olmops/plan"
)

// Package changes.
const (
	PackageAdded   = "added"
	PackageRemoved = "removed"
	PackageChanged = "changed"
)

// PackageChange is a catalog package the head adds, removes or changes.
type PackageChange struct {
	Catalog string `json:"catalog"`
	Package string `json:"package"`
	// Change is added, removed or changed.
	Change string `json:"change"`
	// Diff is the upgrade-graph diff; empty for a change that leaves the
	// graph alone (a property, an image).
	Diff graph.GraphDiff `json:"-"`
}

// MarshalJSON writes the change with its diff's lists, leaving out the
// merged graph, which is for drawing.
func (pc PackageChange) MarshalJSON() ([]byte, error) {
	d := pc.Diff
	type ref struct {
		Channel string `json:"channel,omitempty"`
		Bundle  string `json:"bundle,omitempty"`
		Version string `json:"version,omitempty"`
		From    string `json:"from,omitempty"`
		To      string `json:"to,omitempty"`
		Kind    string `json:"kind,omitempty"`
		Scope   string `json:"scope,omitempty"`
		Name    string `json:"name,omitempty"`
		Message string `json:"message,omitempty"`
	}
	entries := func(es []graph.EntryRef) (out []ref) {
		for _, e := range es {
			out = append(out, ref{Channel: e.Channel, Bundle: e.Bundle, Version: e.Version})
		}
		return out
	}
	edges := func(es []graph.EdgeRef) (out []ref) {
		for _, e := range es {
			out = append(out, ref{Channel: e.Channel, From: e.From, To: e.To, Kind: e.Kind.String()})
		}
		return out
	}
	var heads, deprecated []ref
	for _, h := range d.HeadsMoved {
		heads = append(heads, ref{Channel: h.Channel, From: h.Old, To: h.New})
	}
	for _, dep := range d.Deprecated {
		deprecated = append(deprecated, ref{Scope: string(dep.Scope), Name: dep.Name, Message: dep.Message})
	}
	return json.Marshal(struct {
		Catalog         string   `json:"catalog"`
		Package         string   `json:"package"`
		Change          string   `json:"change"`
		ChannelsAdded   []string `json:"channelsAdded,omitempty"`
		ChannelsRemoved []string `json:"channelsRemoved,omitempty"`
		HeadsMoved      []ref    `json:"headsMoved,omitempty"`
		EntriesAdded    []ref    `json:"entriesAdded,omitempty"`
		EntriesRemoved  []ref    `json:"entriesRemoved,omitempty"`
		EdgesAdded      []ref    `json:"edgesAdded,omitempty"`
		EdgesRemoved    []ref    `json:"edgesRemoved,omitempty"`
		Deprecated      []ref    `json:"deprecated,omitempty"`
	}{pc.Catalog, pc.Package, pc.Change, d.ChannelsAdded, d.ChannelsRemoved, heads,
		entries(d.EntriesAdded), entries(d.EntriesRemoved), edges(d.EdgesAdded), edges(d.EdgesRemoved), deprecated})
}

// packageChanges diffs the packages of every catalog both sides load.
func packageChanges(base, head *side) []PackageChange {
	var out []PackageChange
	digests := plan.NewDigests()
	for _, name := range catalogNames(base, head) {
		b, h := base.catalogs[name], head.catalogs[name]
		if b == h || slices.Contains(base.broken, name) || slices.Contains(head.broken, name) {
			continue
		}
		for _, pn := range packageNames(b, h) {
			pb, ph := lookup(b, pn), lookup(h, pn)
			pc := PackageChange{Catalog: name, Package: pn, Change: PackageChanged}
			var before, after graph.Graph
			switch {
			case pb == nil:
				pc.Change, after = PackageAdded, graph.Build(ph, "")
			case ph == nil:
				pc.Change, before = PackageRemoved, graph.Build(pb, "")
			case !packageChanged(base.tree.FS, head.tree.FS, pb, ph, digests):
				continue
			default:
				before, after = graph.Build(pb, ""), graph.Build(ph, "")
			}
			pc.Diff = graph.Diff(before, after)
			out = append(out, pc)
		}
	}
	return out
}

// catalogNames are the catalogs of the head's olmops.yaml, then those only
// the base has.
func catalogNames(base, head *side) []string {
	var names []string
	for _, s := range []*side{head, base} {
		for _, c := range s.catalogSpecs {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
	}
	return names
}

func packageNames(cats ...*catalog.Catalog) []string {
	var names []string
	for _, c := range cats {
		if c != nil {
			names = append(names, c.PackageNames()...)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func lookup(c *catalog.Catalog, name string) *catalog.Package {
	if c == nil {
		return nil
	}
	return c.Packages[name]
}

// packageChanged tells whether a package differs: not when the files it
// is read from are the same objects on both sides, else by the digest the
// planner keeps in plans (everything resolution and rendering read).
func packageChanged(bfs, hfs fs.FS, pb, ph *catalog.Package, digests *plan.Digests) bool {
	fb, fh := packageFiles(pb), packageFiles(ph)
	if slices.Equal(fb, fh) {
		same := true
		for _, f := range fb {
			hb, okb := objectHash(bfs, f)
			hh, okh := objectHash(hfs, f)
			if !okb || !okh || hb != hh {
				same = false
				break
			}
		}
		if same {
			return false
		}
	}
	db, errb := digests.Package(pb)
	dh, errh := digests.Package(ph)
	return errb != nil || errh != nil || db != dh
}

// packageFiles are the files a package is read from, sorted.
func packageFiles(p *catalog.Package) []string {
	files := []string{p.Pos.File}
	for _, ch := range p.Channels {
		files = append(files, ch.Pos.File)
	}
	for _, b := range p.Bundles {
		files = append(files, b.Pos.File)
	}
	if p.Deprecation != nil {
		files = append(files, p.Deprecation.Pos.File)
	}
	slices.Sort(files)
	return slices.Compact(files)
}

// objectHash is the content address a tree gives a file or folder (a git
// object hash for a git tree); false when the tree gives none.
func objectHash(fsys fs.FS, name string) (any, bool) {
	fi, err := fs.Stat(fsys, name)
	if err != nil || fi.Sys() == nil {
		return nil, false
	}
	h := fi.Sys()
	// Only values, such as git's hash arrays: an os.FileInfo's Sys is a
	// pointer that says nothing about content.
	switch reflect.TypeOf(h).Kind() {
	case reflect.Array, reflect.String:
		return h, true
	}
	return nil, false
}
