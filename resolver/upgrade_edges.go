package resolver

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/semver"
)

// ErrNoCandidates is what every "nothing to install" error matches with
// errors.Is, whatever its wording.
var ErrNoCandidates = errors.New("no candidates")

// ResolutionError is OLM v1's resolution failure: no bundle matched, or
// the best bundles of several catalogs of the same priority tie. Its text
// is operator-controller's, word for word.
type ResolutionError struct {
	Package      string
	VersionRange string
	Channels     []string
	// Installed is the installed version, "" for a fresh install.
	Installed string
	// Catalogs that tie, sorted; empty when nothing matched.
	Catalogs []string
}

// Error writes operator-controller's message for the failure.
func (e *ResolutionError) Error() string {
	var b strings.Builder
	if e.Installed != "" {
		fmt.Fprintf(&b, "error upgrading from currently installed version %q: ", e.Installed)
	}
	if len(e.Catalogs) > 1 {
		fmt.Fprintf(&b, "found bundles for package %q ", e.Package)
	} else {
		fmt.Fprintf(&b, "no bundles found for package %q ", e.Package)
	}
	if e.VersionRange != "" {
		fmt.Fprintf(&b, "matching version %q ", e.VersionRange)
	}
	if len(e.Channels) > 0 {
		fmt.Fprintf(&b, "in channels %v ", e.Channels)
	}
	if len(e.Catalogs) > 1 {
		fmt.Fprintf(&b, "in multiple catalogs with the same priority %v ", e.Catalogs)
	}
	return strings.TrimSpace(b.String())
}

// Is makes a no-match ResolutionError match ErrNoCandidates.
func (e *ResolutionError) Is(target error) bool {
	return target == ErrNoCandidates && len(e.Catalogs) <= 1
}

// notFound is a Classic "no operators found ..." error; level ranks how
// far the search got (package, channel, starting CSV).
type notFound struct {
	level int
	msg   string
}

func (e *notFound) Error() string        { return e.msg }
func (e *notFound) Is(target error) bool { return target == ErrNoCandidates }
func notFoundf(level int, f string, a ...any) *notFound {
	return &notFound{level: level, msg: fmt.Sprintf(f, a...)}
}

// installed is the installed bundle as the policies compare it.
type installed struct {
	name string
	// version is the full version skipRanges are tested against.
	version *semver.Version
	// vr is the version and release a candidate must equal to be "stay".
	vr semver.VersionRelease
	// text is the version as the request gave or the catalog had it.
	text string
}

// parseInstalled reads the installed bundle. Without a version it takes
// the version of the catalogs' bundle of that name; strict says whether a
// bundle found nowhere is an error (Semver) or version 0.0.0, the zero
// CSV version OLM classic falls back to.
func parseInstalled(cats []*catalog.Catalog, pkg string, in *Installed, strict bool) (*installed, error) {
	if in.Bundle == "" {
		return nil, fmt.Errorf("installed bundle has no name")
	}
	text := in.Version
	if text == "" {
		for _, c := range cats {
			if b := c.Bundle(pkg, in.Bundle); b != nil && b.Version != nil {
				text = b.Version.Original()
				break
			}
		}
	}
	if text == "" {
		if strict {
			return nil, fmt.Errorf("installed bundle %q has no version, and no catalog has a bundle of package %q by that name", in.Bundle, pkg)
		}
		text = "0.0.0"
	}
	var vr semver.VersionRelease
	var err error
	if in.Release != nil {
		vr, err = semver.ParseExplicitRelease(text, *in.Release)
		if err != nil {
			return nil, fmt.Errorf("failed to parse installed bundle version and release: %w", err)
		}
		return &installed{name: in.Bundle, version: vr.Version, vr: vr, text: text}, nil
	}
	vr, err = semver.ParseVersionRelease(text)
	if err != nil {
		return nil, fmt.Errorf("failed to get version and release of installed bundle %q: %w", in.Bundle, err)
	}
	full, _ := semver.ParseExplicitRelease(text, "")
	return &installed{name: in.Bundle, version: full.Version, vr: vr, text: text}, nil
}

// entryEdge returns the catalog edge from the installed bundle to e, if e
// has one: e replaces it, skips it, or has a skipRange (classic syntax)
// containing its version. An unreadable skipRange is no edge, as in OLM.
func entryEdge(e *catalog.Entry, in *installed) (Edge, bool) {
	edge := Edge{From: in.name, To: e.Name}
	switch {
	case e.Replaces == in.name:
		edge.Kind = EdgeReplaces
	case slices.Contains(e.Skips, in.name):
		edge.Kind = EdgeSkips
	case e.SkipRange != "" && skipRange(e.SkipRange).Contains(in.version):
		edge.Kind, edge.Range = EdgeSkipRange, e.SkipRange
	default:
		return Edge{}, false
	}
	return edge, true
}

// skipRanges caches parsed skipRanges: catalogs repeat a few ranges many
// times, and a resolution tests many entries. An unparseable range is
// stored as a Range that contains nothing.
var skipRanges sync.Map // string -> semver.Range

var nothing, _ = semver.ParseClassicRange("<0.0.0")

func skipRange(s string) semver.Range {
	if r, ok := skipRanges.Load(s); ok {
		return r.(semver.Range)
	}
	r, err := semver.ParseClassicRange(s)
	if err != nil {
		r = nothing
	}
	skipRanges.Store(s, r)
	return r
}

// inRange reports whether b is in the request's range; a bundle with no
// readable version is only in the empty range.
func inRange(rng semver.Range, b *catalog.Bundle) bool {
	return rng.Any() || rng.Contains(b.Version)
}

// underCap reports whether b is no newer than the request's AtMost.
func underCap(req Request, b *catalog.Bundle) bool {
	return req.AtMost == nil || b.Version != nil && !b.Version.GreaterThan(req.AtMost)
}

// deprecationWarnings lists what is deprecated in pkg among the package,
// the channels, the chosen bundle and the installed one.
func deprecationWarnings(pkg *catalog.Package, channels []string, best Candidate, in *installed) []Warning {
	var ws []Warning
	if m := pkg.Deprecated(); m != "" {
		ws = append(ws, Warning{PackageDeprecated, pkg.Name, m})
	}
	seen := map[string]bool{}
	for _, name := range channels {
		if ch := pkg.Channels[name]; ch != nil && !seen[name] {
			seen[name] = true
			if m := ch.Deprecated(); m != "" {
				ws = append(ws, Warning{ChannelDeprecated, name, m})
			}
		}
	}
	if best.Bundle != nil && best.Deprecated != "" {
		ws = append(ws, Warning{BundleDeprecated, best.Bundle.Name, best.Deprecated})
	}
	if in != nil && in.name != best.Name() {
		if b := pkg.Bundles[in.name]; b != nil && b.Deprecated() != "" {
			ws = append(ws, Warning{BundleDeprecated, b.Name, b.Deprecated()})
		}
	}
	return ws
}
