package catalog

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/semver"
)

// Problems is every finding about a catalog, ordered by file and line.
type Problems []Problem

func (ps Problems) Error() string {
	lines := make([]string, len(ps))
	for i, p := range ps {
		lines[i] = p.Error()
	}
	return strings.Join(lines, "\n")
}

// Unwrap exposes each problem to errors.Is and errors.As.
func (ps Problems) Unwrap() []error {
	out := make([]error, len(ps))
	for i, p := range ps {
		out[i] = p
	}
	return out
}

// Err returns nil when there are no problems, else ps.
func (ps Problems) Err() error {
	if len(ps) == 0 {
		return nil
	}
	return ps
}

// Validate checks the catalog against the rules opm validate applies and
// returns every problem at once, ordered by file and line. Where opm has
// words for a problem they are opm's; problems opm finds while validating
// its model carry the path of opm's error tree (invalid package "p":
// invalid channel "c": ...). docs/compatibility.md lists where olmops
// deliberately differs.
func (c *Catalog) Validate() Problems {
	ps := append(Problems(nil), c.problems...)
	for _, pn := range c.PackageNames() {
		ps = append(ps, c.Packages[pn].problems()...)
	}
	sortProblems(ps)
	return ps
}

func (p *Package) problems() []Problem {
	var ps []Problem
	add := func(pos Pos, ch, bundle, msg string) {
		ps = append(ps, Problem{Pos: pos, Package: p.Name, Channel: ch, Bundle: bundle, Message: scopeOf(p.Name, ch, bundle) + msg})
	}
	if len(p.Channels) == 0 {
		add(p.Pos, "", "", "package must contain at least one channel")
	}
	switch {
	case p.DefaultChannel == "":
		add(p.Pos, "", "", "default channel must be set")
	case len(p.Channels) > 0 && p.Channels[p.DefaultChannel] == nil:
		add(p.Pos, "", "", fmt.Sprintf("default channel %q not found in channels list", p.DefaultChannel))
	}

	var missing []*Entry // entries without an olm.bundle
	for _, cn := range p.ChannelNames() {
		ch := p.Channels[cn]
		if len(ch.Entries) == 0 {
			add(ch.Pos, ch.Name, "", "channel must contain at least one bundle")
			continue
		}
		if msg := ch.graphProblem(); msg != "" {
			add(ch.Pos, ch.Name, "", msg)
		}
		for _, e := range ch.Entries {
			if e.Name == "" {
				add(e.Pos, ch.Name, "", `invalid bundle "": name must be set`)
			}
			for i, s := range e.Skips {
				if s == "" {
					add(e.Pos, ch.Name, e.Name, fmt.Sprintf("skip[%d] is empty", i))
				}
			}
			if e.SkipRange != "" {
				if err := checkRange(e.SkipRange); err != nil {
					add(e.Pos, ch.Name, e.Name, fmt.Sprintf("invalid skipRange %q: %v", e.SkipRange, err))
				}
			}
			if e.Bundle == nil {
				missing = append(missing, e)
			}
		}
	}
	if len(missing) > 0 {
		first := missing[0]
		names := map[string]bool{}
		for _, e := range missing {
			names[e.Name] = true
			if posLess(e.Pos, first.Pos) {
				first = e
			}
		}
		ps = append(ps, Problem{Pos: first.Pos, Package: p.Name, Channel: first.Channel.Name, Bundle: first.Name,
			Message: fmt.Sprintf("no olm.bundle blobs found in package %q for olm.channel entries %s", p.Name, sortedKeys(names))})
	}

	for _, bn := range p.BundleNames() {
		ps = append(ps, p.Bundles[bn].problems()...)
	}
	if msg := p.duplicateVersions(); msg != "" {
		add(p.Pos, "", "", msg)
	}
	return ps
}

func (b *Bundle) problems() []Problem {
	var ps []Problem
	pkg := b.Package.Name
	add := func(msg string) {
		ps = append(ps, Problem{Pos: b.Pos, Package: pkg, Bundle: b.Name, Message: scopeOf(pkg, "", b.Name) + msg})
	}
	if len(b.Channels) == 0 {
		ps = append(ps, Problem{Pos: b.Pos, Package: pkg, Bundle: b.Name,
			Message: fmt.Sprintf("package %q, bundle %q not found in any channel entries", pkg, b.Name)})
	}
	if b.Image == "" && len(b.Props.BundleObjects) == 0 {
		add("bundle image must be set")
	}
	if err := checkImageRef(b.Image); err != nil {
		add(fmt.Sprintf("image: invalid image pull spec %q: %v", b.Image, err))
	}
	for i, ri := range b.RelatedImages {
		if err := checkImageRef(ri.Image); err != nil {
			add(fmt.Sprintf("relatedImages[%d].image: invalid image pull spec %q: %v", i, ri.Image, err))
		}
	}
	if len(b.Props.Packages) == 1 && b.Version != nil {
		pp := b.Props.Packages[0]
		if pp.Release != "" {
			if err := checkRelease(pp.Release); err != nil {
				add(err.Error())
			} else {
				if want := fmt.Sprintf("%s-v%s-%s", pkg, pp.Version, pp.Release); b.Name != want {
					add(fmt.Sprintf("name %q does not match normalized name %q", b.Name, want))
				}
				if b.Version.Metadata() != "" {
					add("cannot use build metadata in version with a release version")
				}
			}
		}
	}
	return ps
}

// versionReleaseMaxLength bounds a release, as the ClusterServiceVersion
// CRD does.
const versionReleaseMaxLength = 20

func checkRelease(r string) error {
	if len(r) > versionReleaseMaxLength {
		return fmt.Errorf("invalid release %q: exceeds maximum length of %d characters", r, versionReleaseMaxLength)
	}
	var errs []error
	for i, seg := range strings.Split(r, ".") {
		if err := semver.CheckPrerelease(seg); err != nil {
			errs = append(errs, fmt.Errorf("segment %d: %v", i, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("invalid release %q: %v", r, err)
	}
	return nil
}

// duplicateVersions lists the versions (with their release, if any) that
// more than one bundle of the package has, in opm's words and order.
func (p *Package) duplicateVersions() string {
	type group struct {
		b     *Bundle
		names []string
	}
	groups := map[string]*group{}
	for _, bn := range p.BundleNames() {
		b := p.Bundles[bn]
		if b.Version == nil {
			continue
		}
		key := b.Props.Packages[0].Version
		if r := b.Props.Packages[0].Release; r != "" {
			key += "-" + r
		}
		g := groups[key]
		if g == nil {
			g = &group{b: b}
			groups[key] = g
		}
		g.names = append(g.names, b.Name)
	}
	var dups []string
	for k, g := range groups {
		if len(g.names) > 1 {
			dups = append(dups, k)
		}
	}
	if len(dups) == 0 {
		return ""
	}
	sort.Slice(dups, func(i, j int) bool {
		a, b := groups[dups[i]].b, groups[dups[j]].b
		if c := a.Version.Compare(b.Version); c != 0 {
			return c < 0
		}
		return dups[i] < dups[j]
	})
	parts := make([]string, len(dups))
	for i, k := range dups {
		parts[i] = fmt.Sprintf("{%s: [%s]}", k, strings.Join(groups[k].names, ", "))
	}
	return fmt.Sprintf("duplicate versions found in bundles: [%s]", strings.Join(parts, " "))
}

func posLess(a, b Pos) bool {
	if a.File != b.File {
		return a.File < b.File
	}
	return a.Line < b.Line
}

func sortProblems(ps Problems) {
	sort.SliceStable(ps, func(i, j int) bool { return posLess(ps[i].Pos, ps[j].Pos) })
}

// AsProblems flattens an error from loading a catalog (possibly a tree of
// joined errors) into problems with positions, for reporting.
func AsProblems(err error) Problems {
	var ps Problems
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		var p Problem
		var fe *fbc.Error
		switch {
		case errors.As(err, &fe) && fe == err:
			ps = append(ps, Problem{Pos: fe.Pos, Message: strings.TrimPrefix(fe.Error(), fe.Pos.String()+": "), Err: fe})
		case errors.As(err, &p) && error(p) == err:
			ps = append(ps, p)
		default:
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					walk(e)
				}
				return
			}
			ps = append(ps, Problem{Message: err.Error(), Err: err})
		}
	}
	walk(err)
	return ps
}

// ---- names and image references ----

const (
	dns1123LabelFmt    = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
	dns1123LabelMaxLen = 63
	dns1123LabelErrMsg = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character"
)

var (
	dns1123LabelRE     = regexp.MustCompile("^" + dns1123LabelFmt + "$")
	dns1123SubdomainRE = regexp.MustCompile("^" + dns1123LabelFmt + `(\.` + dns1123LabelFmt + ")*$")
)

// dns1123Label returns what makes name no RFC 1123 label, in the words of
// Kubernetes' validation.IsDNS1123Label, which opm uses for package names.
func dns1123Label(name string) []string {
	var errs []string
	if len(name) > dns1123LabelMaxLen {
		errs = append(errs, fmt.Sprintf("must be no more than %d characters", dns1123LabelMaxLen))
	}
	if !dns1123LabelRE.MatchString(name) {
		if dns1123SubdomainRE.MatchString(name) {
			errs = append(errs, "must not contain dots")
		} else {
			errs = append(errs, dns1123LabelErrMsg+" (e.g. 'my-name', or '123-abc', regex used for validation is '"+dns1123LabelFmt+"')")
		}
	}
	return errs
}
