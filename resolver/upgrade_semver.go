package resolver

import (
	"cmp"
	"slices"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/semver"
)

// semverSuccessors is OLM v1's catalog resolution: the best candidate of
// each catalog, then non-deprecated over deprecated, then the highest
// catalog priority; a remaining tie is an error.
func semverSuccessors(cats []*catalog.Catalog, req Request, rng semver.Range) (Result, error) {
	var in *installed
	if req.Installed != nil {
		var err error
		if in, err = parseInstalled(cats, req.Package, req.Installed, true); err != nil {
			return Result{}, err
		}
	}
	type found struct {
		cat   *catalog.Catalog
		pkg   *catalog.Package
		cands []Candidate
	}
	var resolved []found
	for _, cat := range cats {
		pkg := cat.Packages[req.Package]
		if pkg == nil {
			continue
		}
		cands, err := semverCandidates(cat, pkg, channelsOf(pkg, req), rng, in)
		if err != nil {
			return Result{}, err
		}
		if len(cands) == 0 {
			continue
		}
		if len(resolved) > 0 {
			this, prior := cands[0].Deprecated != "", resolved[len(resolved)-1].cands[0].Deprecated != ""
			if this && !prior {
				continue
			}
			if !this && prior {
				resolved = resolved[:0]
			}
		}
		resolved = append(resolved, found{cat, pkg, cands})
	}
	slices.SortStableFunc(resolved, func(a, b found) int { return cmp.Compare(b.cat.Priority, a.cat.Priority) })
	if len(resolved) > 1 && resolved[0].cat.Priority != resolved[1].cat.Priority {
		resolved = resolved[:1]
	}
	if len(resolved) == 0 && in == nil && req.StartingCSV != "" {
		// The user pinned the first version: installing another one would
		// be exactly what they avoided.
		return Result{}, notFoundf(3, "no operators found with name %s in channel %s of package %s in the catalog referenced by subscription %s", req.StartingCSV, channelList(req.Channels), req.Package, subscriptionName(req))
	}
	if len(resolved) != 1 {
		e := &ResolutionError{Package: req.Package, VersionRange: req.VersionRange, Channels: req.Channels}
		if in != nil {
			e.Installed = in.text
		}
		for _, f := range resolved {
			e.Catalogs = append(e.Catalogs, f.cat.Name)
		}
		slices.Sort(e.Catalogs)
		return Result{}, e
	}
	win := resolved[0]
	return Result{
		Candidates:  win.cands,
		Deprecation: win.pkg.Deprecation,
		Warnings:    deprecationWarnings(win.pkg, req.Channels, win.cands[0], in),
	}, nil
}

// channelsOf returns req with the package's default channel as its only
// channel when req asks for the default channel and names none.
func channelsOf(pkg *catalog.Package, req Request) Request {
	if len(req.Channels) == 0 && req.DefaultChannel && pkg.DefaultChannel != "" {
		req.Channels = []string{pkg.DefaultChannel}
	}
	return req
}

// semverCandidates lists one catalog's candidates, sorted: bundles in the
// requested channels (all of the package's when none is requested) and
// the range, that the installed bundle may move to; for a fresh install
// with a StartingCSV, that bundle only.
func semverCandidates(cat *catalog.Catalog, pkg *catalog.Package, req Request, rng semver.Range, in *installed) ([]Candidate, error) {
	var caret semver.Range
	if in != nil && req.ForceSemverUpgradeConstraints && !req.SelfCertified {
		var err error
		if caret, err = semver.ParseRange("^" + semverBase(in.vr.Version)); err != nil {
			return nil, err
		}
	}
	var cands []Candidate
	for _, name := range pkg.BundleNames() {
		b := pkg.Bundles[name]
		ch, ok := channelFor(b, req.Channels)
		if !ok || !inRange(rng, b) || !underCap(req, b) || (in == nil && req.StartingCSV != "" && b.Name != req.StartingCSV) {
			continue
		}
		c := Candidate{Catalog: cat, Channel: ch, Bundle: b, Deprecated: b.Deprecated()}
		switch {
		case in == nil:
			c.Edge = Edge{Kind: EdgeInstall, To: b.Name}
		case b.Version != nil && semver.LegacyVersionRelease(b.Version).Compare(in.vr) == 0:
			c.Edge = Edge{Kind: EdgeStay, From: in.name, To: b.Name}
		case req.SelfCertified:
			c.Edge = Edge{Kind: EdgeSelfCertified, From: in.name, To: b.Name}
		case req.ForceSemverUpgradeConstraints:
			if !caret.Contains(b.Version) {
				continue
			}
			c.Edge = Edge{Kind: EdgeSemver, From: in.name, To: b.Name}
		default:
			edge, edgeCh, ok := bundleEdge(b, in)
			if !ok {
				continue
			}
			c.Edge = edge
			if c.Channel == nil || len(req.Channels) == 0 {
				c.Channel = edgeCh
			}
		}
		cands = append(cands, c)
	}
	slices.SortStableFunc(cands, compareCandidates)
	return cands, nil
}

// compareCandidates orders non-deprecated bundles first, then by version
// and release, highest first; bundles without a version go last.
func compareCandidates(a, b Candidate) int {
	if d := byDeprecation(a.Deprecated != "", b.Deprecated != ""); d != 0 {
		return d
	}
	return byVersionRelease(a.Bundle, b.Bundle)
}

func byDeprecation(a, b bool) int {
	switch {
	case a && !b:
		return 1
	case !a && b:
		return -1
	}
	return 0
}

func byVersionRelease(a, b *catalog.Bundle) int {
	return semver.LegacyVersionRelease(b.Version).Compare(semver.LegacyVersionRelease(a.Version))
}

// semverBase is v without build metadata, for a caret range.
func semverBase(v *semver.Version) string {
	s := v.String()
	if m := v.Metadata(); m != "" {
		s = s[:len(s)-len(m)-1]
	}
	return s
}

// channelFor returns the channel b is taken from: the first requested
// channel holding it, or with none requested its first channel by name
// (nil for a bundle in no channel). ok is false when b is in none of the
// requested channels.
func channelFor(b *catalog.Bundle, requested []string) (*catalog.Channel, bool) {
	if len(requested) == 0 {
		if len(b.Channels) == 0 {
			return nil, true
		}
		return b.Channels[0], true
	}
	for _, want := range requested {
		for _, ch := range b.Channels {
			if ch.Name == want {
				return ch, true
			}
		}
	}
	return nil, false
}

// bundleEdge finds an edge from the installed bundle to b in any channel
// of the package (v1 reads edges from every channel, whichever channels
// candidates are taken from), channels in name order.
func bundleEdge(b *catalog.Bundle, in *installed) (Edge, *catalog.Channel, bool) {
	for _, ch := range b.Channels {
		if e := ch.Entry(b.Name); e != nil {
			if edge, ok := entryEdge(e, in); ok {
				return edge, ch, true
			}
		}
	}
	return Edge{}, nil, false
}
