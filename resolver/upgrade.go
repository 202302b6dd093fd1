package resolver

import (
	"fmt"

	"k8s.io/apimachinery/pkg/labels"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/catalog/semver"
)

// Policy is a successor policy: the rules for which bundles an installed
// bundle may move to, and which of them wins.
type Policy string

// The successor policies.
const (
	// Semver is OLM v1's policy and the default: any bundle with a direct
	// replaces, skips or skipRange edge from the installed one, the highest
	// version winning.
	Semver Policy = "Semver"
	// Classic is OLM classic's policy: the edge closest to the channel
	// head wins, one hop per resolution.
	Classic Policy = "Classic"
)

// Request is what one subscription asks of the catalogs.
type Request struct {
	// Package to install or upgrade.
	Package string
	// Channels to take bundles from. None means, for Classic, the default
	// channel (every channel when the package has none), and for Semver
	// every bundle of the package, even those in no channel, unless
	// DefaultChannel is set.
	Channels []string
	// DefaultChannel makes "no Channels" mean the package's default channel
	// under every policy: what a Subscription without spec.channel means
	// to OLM classic, which never reads it as "any channel".
	DefaultChannel bool
	// VersionRange limits candidates, in OLM v1 syntax ("" for any).
	VersionRange string
	// Installed is the bundle installed now; nil for a fresh install.
	Installed *Installed
	// AtMost, when set, leaves out every candidate newer than it, and
	// those without a version: how far a promotion between clusters lets
	// the subscription go (olmops' own rule, not OLM's).
	AtMost *semver.Version
	// Policy chooses the successor rules; "" means Semver.
	Policy Policy
	// SelfCertified drops the edge requirement (OLM v1
	// upgradeConstraintPolicy: SelfCertified): any bundle in the channels
	// and range, including downgrades.
	SelfCertified bool
	// ForceSemverUpgradeConstraints replaces the catalog's edges with
	// semver ones (OLM v1's feature gate of that name): the successors of
	// X.Y.Z are the versions in ^X.Y.Z, so never a new major version, for
	// 0.Y.Z only patches, and for 0.0.Z nothing.
	ForceSemverUpgradeConstraints bool
	// StartingCSV is the bundle a fresh install starts from instead of the
	// channel head, under either policy; a request whose channels and range
	// do not hold it fails rather than install something else.
	StartingCSV string
	// Catalog limits the search to the catalog of that name (a
	// Subscription's source); "" searches them all.
	Catalog string
	// CatalogSelector, when set, limits the search to the catalogs whose
	// labels it matches (a ClusterExtension's spec.source.catalog.selector),
	// each catalog carrying its Labels plus CatalogNameLabel=<name>.
	CatalogSelector labels.Selector
	// CatalogNamespace is the namespace of Catalog (a Subscription's
	// spec.sourceNamespace), named in OLM's words when the catalog has
	// nothing for the request; "" leaves it out.
	CatalogNamespace string
	// Namespace is the subscription's own namespace: it sees the global
	// catalogs and those restricted to it (catalog.Catalog.Namespaces).
	// Resolve fills it from Namespace.Name.
	Namespace string
	// Name names the subscription in Classic's messages; "" uses Package.
	Name string
	// Pos is where the subscription is written; errors Resolve returns
	// about this one subscription start with it, so an editor or a GitHub
	// annotation points at the file. Zero when the request has no file.
	Pos property.Pos
}

// Installed identifies the installed bundle.
type Installed struct {
	Bundle string
	// Version of the installed bundle; "" looks it up in the catalogs.
	Version string
	// Release is the installed release when recorded apart from Version
	// (OLM v1's status.install.bundle.release); nil means the release is
	// read from Version's build metadata, as for registry+v1 bundles.
	Release *string
}

// EdgeKind says why a candidate may be moved to.
type EdgeKind string

// The kinds of edge.
const (
	EdgeReplaces      EdgeKind = "replaces"
	EdgeSkips         EdgeKind = "skips"
	EdgeSkipRange     EdgeKind = "skipRange"
	EdgeSemver        EdgeKind = "semver"        // ForceSemverUpgradeConstraints
	EdgeSelfCertified EdgeKind = "selfCertified" // SelfCertified, no catalog edge
	EdgeInstall       EdgeKind = "install"       // fresh install
	EdgeStay          EdgeKind = "stay"          // the installed bundle itself
)

// Edge is the reason a candidate is allowed: From is the installed bundle
// ("" for an install), To the candidate, Range the skipRange that matched.
type Edge struct {
	Kind  EdgeKind
	From  string
	To    string
	Range string
}

// String describes the edge for people ("a -> b (replaces)").
func (e Edge) String() string {
	switch e.Kind {
	case EdgeInstall:
		return "install " + e.To
	case EdgeStay:
		return "stay on " + e.From
	case EdgeSkipRange:
		return fmt.Sprintf("%s -> %s (skipRange %q)", e.From, e.To, e.Range)
	}
	return fmt.Sprintf("%s -> %s (%s)", e.From, e.To, e.Kind)
}

// Candidate is one bundle a request may move to.
type Candidate struct {
	Catalog *catalog.Catalog
	// Channel holds the entry the candidate was found through; nil for a
	// Semver candidate in no channel.
	Channel *catalog.Channel
	// Bundle is nil only for a Classic stay on a bundle the catalog no
	// longer has.
	Bundle *catalog.Bundle
	Edge   Edge
	// Deprecated is the olm.deprecations message for the bundle, "" if none.
	Deprecated string
}

// Name returns the candidate bundle's name.
func (c Candidate) Name() string { return c.Edge.To }

// Result is the answer to a Request.
type Result struct {
	// Candidates in preference order; Candidates[0] is the answer.
	Candidates []Candidate
	// Deprecation is the olm.deprecations of the package in the winning
	// catalog, nil if it has none.
	Deprecation *catalog.Deprecation
	// Warnings name what is deprecated among the package, the channels
	// asked for or used, the chosen bundle and the installed bundle.
	Warnings []Warning
}

// Best returns the preferred candidate. A Result from Successors always
// has one.
func (r Result) Best() Candidate { return r.Candidates[0] }

// Upgrades reports whether the best candidate moves off the installed bundle.
func (r Result) Upgrades() bool { return r.Best().Edge.Kind != EdgeStay }

// WarningKind says what a deprecation warning is about.
type WarningKind string

// The kinds of deprecation.
const (
	PackageDeprecated WarningKind = "PackageDeprecated"
	ChannelDeprecated WarningKind = "ChannelDeprecated"
	BundleDeprecated  WarningKind = "BundleDeprecated"
)

// Warning is one deprecation that applies to a request.
type Warning struct {
	Kind    WarningKind
	Name    string
	Message string
}

// String writes the warning as "Kind name: message".
func (w Warning) String() string { return fmt.Sprintf("%s %s: %s", w.Kind, w.Name, w.Message) }

// Successors returns the bundles req may move to, best first. It fails when
// there is none (a NoCandidatesError), when several catalogs tie, or when
// the request or the catalogs' graph cannot be read.
func Successors(cats []*catalog.Catalog, req Request) (Result, error) {
	return successors(cats, req, channelOrders{})
}

func successors(cats []*catalog.Catalog, req Request, orders channelOrders) (Result, error) {
	return successorsOf(cats, req, orders, false)
}

// successorsOf is successors; bestOnly asks only for what Best and the
// error need (a Classic result then holds the best candidate alone and no
// warnings), for the hops of an upgrade path.
func successorsOf(cats []*catalog.Catalog, req Request, orders channelOrders, bestOnly bool) (Result, error) {
	if req.Package == "" {
		return Result{}, fmt.Errorf("no package in request")
	}
	rng, err := semver.ParseRange(req.VersionRange)
	if err != nil {
		return Result{}, err
	}
	if req.Catalog != "" {
		if err := checkCatalogScope(cats, req); err != nil {
			return Result{}, err
		}
	}
	cats = visibleIn(cats, req.Namespace)
	if req.Catalog != "" {
		cats = selectCatalog(cats, req.Catalog)
	}
	if req.CatalogSelector != nil {
		cats = selectLabels(cats, req.CatalogSelector)
	}
	switch req.Policy {
	case Semver, "":
		return semverSuccessors(cats, req, rng)
	case Classic:
		return classicSuccessors(cats, req, rng, orders, bestOnly)
	}
	return Result{}, fmt.Errorf("unknown successor policy %q (want %s or %s)", req.Policy, Semver, Classic)
}

func selectCatalog(cats []*catalog.Catalog, name string) []*catalog.Catalog {
	for _, c := range cats {
		if c.Name == name {
			return []*catalog.Catalog{c}
		}
	}
	return nil
}

// Hop is one step of an upgrade path.
type Hop struct {
	Catalog *catalog.Catalog
	Channel *catalog.Channel
	Bundle  *catalog.Bundle
	Edge    Edge
}

// UpgradePath follows Successors from the installed bundle until the best
// candidate is to stay: the upgrades OLM makes over successive resolutions
// (one per resolution for Classic). A fresh install is one Install hop; an
// installed bundle with nothing newer is no hop.
func UpgradePath(cats []*catalog.Catalog, req Request) ([]Hop, error) {
	return upgradePath(cats, req, channelOrders{})
}

func upgradePath(cats []*catalog.Catalog, req Request, orders channelOrders) ([]Hop, error) {
	return upgradePathFrom(cats, req, orders, nil)
}

// upgradePathFrom is upgradePath whose first hop's successors, if first is
// not nil, are already known: a resolution has them from choosing the
// subscription's candidates, and successors is a pure function of the
// request and the catalogs.
func upgradePathFrom(cats []*catalog.Catalog, req Request, orders channelOrders, first *Result) ([]Hop, error) {
	var path []Hop
	seen := map[string]bool{}
	if req.Installed != nil {
		seen[req.Installed.Bundle] = true
	}
	for {
		var res Result
		var err error
		if first != nil {
			res, first = *first, nil
		} else {
			res, err = successorsOf(cats, req, orders, true)
		}
		if err != nil {
			if len(path) > 0 {
				return path, fmt.Errorf("after %s: %w", path[len(path)-1].Edge, err)
			}
			return nil, err
		}
		best := res.Best()
		if best.Edge.Kind == EdgeStay {
			return path, nil
		}
		path = append(path, Hop{Catalog: best.Catalog, Channel: best.Channel, Bundle: best.Bundle, Edge: best.Edge})
		if seen[best.Name()] {
			return path, fmt.Errorf("upgrade path loops back to %q", best.Name())
		}
		seen[best.Name()] = true
		next := &Installed{Bundle: best.Name()}
		if best.Bundle != nil && best.Bundle.Version != nil {
			next.Version = best.Bundle.Version.String()
		}
		req.Installed, req.StartingCSV = next, ""
		if best.Edge.Kind == EdgeSelfCertified {
			return path, nil // a forced move is one step, not a walk
		}
	}
}
