package resolver

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/catalog/semver"
	"github.com/olmops/olmops/resolver/sat"
)

// problem is the SAT encoding of one namespace. Bundle variables are
// identified as <catalog>/<channel>/<bundle>, as OLM classic names them, so
// a bundle in two channels is two choices of which at most one installs
// (with " (package P)" added when another package's bundle took that id).
type problem struct {
	ns Namespace
	// visible are the catalogs the namespace sees, where dependencies
	// are looked for.
	visible []*catalog.Catalog
	subs    []subscriptionVar
	bundles map[sat.Identifier]*bundleVar
	order   []sat.Identifier // bundle variables in discovery order
	queue   []*bundleVar
	ranks   map[*catalog.Channel]map[string]int
	skipped map[*catalog.Channel]map[string]bool
	cel     map[*catalog.Bundle]map[string]any
	orders  channelOrders // shared by the subscriptions' candidates and paths
	// names maps each bundle name to the package of its first variable;
	// shared lists, in order of discovery, the names two packages ship.
	names  map[string]string
	shared []string
}

type subscriptionVar struct {
	sub        Subscription
	id         sat.Identifier
	candidates []Candidate
	ids        []sat.Identifier
	result     Result
	// noCandidates is why the subscription has nothing to choose from; the
	// solver then reports it together with whatever else conflicts.
	noCandidates string
}

type bundleVar struct {
	id          sat.Identifier
	cat         *catalog.Catalog
	ch          *catalog.Channel
	b           *catalog.Bundle
	name        string // bundle name, also when b is nil
	pkg         string
	constraints []sat.Constraint
	// deps are the candidate lists of each dependency, for RequiredBy.
	deps [][]sat.Identifier
}

func newProblem(ns Namespace) (*problem, error) {
	if err := ns.name(); err != nil {
		return nil, err
	}
	return &problem{ns: ns, visible: visibleIn(ns.Catalogs, ns.Name), bundles: map[sat.Identifier]*bundleVar{},
		ranks: map[*catalog.Channel]map[string]int{}, skipped: map[*catalog.Channel]map[string]bool{},
		cel: map[*catalog.Bundle]map[string]any{}, orders: channelOrders{}, names: map[string]string{}}, nil
}

// name settles the namespace's name and gives it to every subscription: a
// resolution is one namespace, so a subscription of another is a caller's
// mistake, refused rather than resolved against the wrong catalogs.
func (ns *Namespace) name() error {
	for _, s := range ns.Subscriptions {
		if ns.Name == "" {
			ns.Name = s.Namespace
		}
	}
	subs := slices.Clone(ns.Subscriptions)
	for i := range subs {
		switch subs[i].Namespace {
		case "":
			subs[i].Namespace = ns.Name
		case ns.Name:
		default:
			return subscriptionError(subs[i].Request, fmt.Errorf("is in namespace %s, not %s: one resolution is one namespace", subs[i].Namespace, ns.Name))
		}
	}
	ns.Subscriptions = subs
	return nil
}

func bundleID(cat *catalog.Catalog, ch *catalog.Channel, name string) sat.Identifier {
	chName := ""
	if ch != nil {
		chName = ch.Name
	}
	catName := "installed"
	if cat != nil {
		catName = cat.Name
	}
	return sat.Identifier(catName + "/" + chName + "/" + name)
}

// addSubscriptions makes a mandatory variable per subscription whose one
// dependency lists its successor candidates, best first.
func (p *problem) addSubscriptions() error {
	for _, s := range p.ns.Subscriptions {
		name := s.Name
		if name == "" {
			name = s.Package
		}
		s.Request.Name = name
		res, err := successors(p.ns.Catalogs, s.Request, p.orders)
		if errors.Is(err, ErrNoCandidates) {
			s.Name = name
			p.subs = append(p.subs, subscriptionVar{sub: s, id: sat.Identifier("subscription " + name), noCandidates: posPrefix(s.Pos) + err.Error()})
			continue
		}
		if err != nil {
			return subscriptionError(s.Request, err)
		}
		cands := res.Candidates
		if s.Held != "" && s.Installed != nil {
			cands = stayOnly(cands)
		}
		sv := subscriptionVar{sub: s, id: sat.Identifier("subscription " + name), candidates: cands, result: res}
		for _, c := range cands {
			bv := p.bundle(c.Catalog, c.Channel, c.Bundle, s.Package, c.Name())
			sv.ids = append(sv.ids, bv.id)
		}
		sv.sub.Name = name
		p.subs = append(p.subs, sv)
	}
	return nil
}

// stayOnly keeps the installed bundle: Upgradeable=False holds an upgrade.
func stayOnly(cands []Candidate) []Candidate {
	for _, c := range cands {
		if c.Edge.Kind == EdgeStay {
			return []Candidate{c}
		}
	}
	return cands[len(cands)-1:]
}

func (p *problem) bundle(cat *catalog.Catalog, ch *catalog.Channel, b *catalog.Bundle, pkg, name string) *bundleVar {
	id := bundleID(cat, ch, name)
	if bv, ok := p.bundles[id]; ok {
		if bv.pkg == pkg {
			return bv
		}
		// Two packages of one catalog can ship a bundle of one name in
		// channels of one name (ocp-v4.20: couchbase-enterprise-certified
		// and its -rhmp twin). They are two operators: one variable for
		// both would let one bundle stand for both subscriptions.
		id = sat.Identifier(fmt.Sprintf("%s (package %s)", id, pkg))
		if bv, ok := p.bundles[id]; ok {
			return bv
		}
	}
	switch first, ok := p.names[name]; {
	case !ok:
		p.names[name] = pkg
	case first != pkg && !slices.Contains(p.shared, name):
		p.shared = append(p.shared, name)
	}
	bv := &bundleVar{id: id, cat: cat, ch: ch, b: b, pkg: pkg, name: name}
	p.bundles[id] = bv
	p.order = append(p.order, id)
	p.queue = append(p.queue, bv)
	return bv
}

// closeDependencies gives every bundle variable its constraints, adding the
// providers they name, until no new bundle appears.
func (p *problem) closeDependencies(ctx context.Context) error {
	for len(p.queue) > 0 {
		if err := ctx.Err(); err != nil {
			return err
		}
		bv := p.queue[0]
		p.queue = p.queue[1:]
		if err := p.constrain(bv); err != nil {
			return err
		}
	}
	return nil
}

func (p *problem) constrain(bv *bundleVar) error {
	b := bv.b
	if b == nil {
		return nil
	}
	if msg := p.kubeVersionProblem(b); msg != "" {
		bv.constraints = append(bv.constraints, sat.WithMessage(sat.Prohibited(), msg))
	}
	for _, g := range b.Props.GVKsRequired {
		ids := p.providers(bv, g)
		bv.deps = append(bv.deps, ids)
		msg := fmt.Sprintf("bundle %s requires an operator providing an API with group: %s, version: %s, kind: %s", b.Name, g.Group, g.Version, g.Kind)
		bv.constraints = append(bv.constraints, sat.WithMessage(sat.Dependency(ids...), msg))
	}
	for _, req := range b.Props.PackagesRequired {
		ids, err := p.packageProviders(bv, req)
		if err != nil {
			return fmt.Errorf("%s: bundle %s: olm.package.required: %w", b.Pos, b.Name, err)
		}
		bv.deps = append(bv.deps, ids)
		msg := fmt.Sprintf("bundle %s requires an operator with package: %s and with version in range: %s", b.Name, req.PackageName, req.VersionRange)
		bv.constraints = append(bv.constraints, sat.WithMessage(sat.Dependency(ids...), msg))
	}
	// A requirement the catalog could not parse leaves the answer
	// undefined: it stops the resolution instead of vanishing.
	for _, e := range b.Props.Invalid {
		switch e.Type {
		case property.TypeConstraint, property.TypeGVKRequired, property.TypePackageRequired:
			return fmt.Errorf("%s: bundle %s: %s: %w", e.Pos, b.Name, e.Type, e.Err)
		}
	}
	for _, c := range b.Props.Constraints {
		ids, err := p.constraintProviders(bv, c)
		if err != nil {
			return fmt.Errorf("%s: bundle %s: olm.constraint: %w", b.Pos, b.Name, err)
		}
		bv.deps = append(bv.deps, ids)
		msg := c.FailureMessage
		if msg == "" {
			msg = fmt.Sprintf("bundle %s requires %s", b.Name, describeConstraint(c))
		}
		bv.constraints = append(bv.constraints, sat.WithMessage(sat.Dependency(ids...), msg))
	}
	return nil
}

// providers lists the channel entries providing g, most preferred first.
func (p *problem) providers(dep *bundleVar, g property.GVK) []sat.Identifier {
	var cands []*bundleVar
	for _, cat := range p.visible {
		for _, b := range cat.Providers(g) {
			cands = append(cands, p.entries(cat, b)...)
		}
	}
	return p.ordered(dep, cands)
}

func (p *problem) packageProviders(dep *bundleVar, req property.PackageRequired) ([]sat.Identifier, error) {
	rng, err := semver.ParseClassicRange(req.VersionRange)
	if err != nil {
		return nil, err
	}
	var cands []*bundleVar
	for _, cat := range p.visible {
		pkg := cat.Packages[req.PackageName]
		if pkg == nil {
			continue
		}
		for _, bn := range pkg.BundleNames() {
			b := pkg.Bundles[bn]
			if b.Version != nil && rng.Contains(b.Version) {
				cands = append(cands, p.entries(cat, b)...)
			}
		}
	}
	return p.ordered(dep, cands), nil
}

// entries are the variables of a bundle: one per channel it is in, except
// channels where another entry skips it. A skipped entry is never offered
// as a dependency, as in OLM classic.
func (p *problem) entries(cat *catalog.Catalog, b *catalog.Bundle) []*bundleVar {
	out := make([]*bundleVar, 0, len(b.Channels))
	for _, ch := range b.Channels {
		if !p.skippedIn(ch)[b.Name] {
			out = append(out, p.bundle(cat, ch, b, b.Package.Name, b.Name))
		}
	}
	return out
}

func (p *problem) skippedIn(ch *catalog.Channel) map[string]bool {
	s, ok := p.skipped[ch]
	if !ok {
		s = map[string]bool{}
		for _, e := range ch.Entries {
			for _, name := range e.Skips {
				s[name] = true
			}
		}
		p.skipped[ch] = s
	}
	return s
}

// ordered sorts dependency candidates by OLM classic's preferences: the
// dependent bundle's own catalog, higher catalog priority, catalog name,
// package name, the package's default channel, channels by name, then
// closer to the channel head. The subscription that pulled the dependent
// in plays no part: a dependency of a dependency looks first where its
// dependent came from.
func (p *problem) ordered(dep *bundleVar, cands []*bundleVar) []sat.Identifier {
	slices.SortStableFunc(cands, func(a, b *bundleVar) int {
		return cmp.Or(
			boolFirst(a.cat == dep.cat, b.cat == dep.cat),
			cmp.Compare(b.cat.Priority, a.cat.Priority),
			cmp.Compare(a.cat.Name, b.cat.Name),
			cmp.Compare(a.pkg, b.pkg),
			boolFirst(isDefault(a.ch), isDefault(b.ch)),
			cmp.Compare(a.ch.Name, b.ch.Name),
			cmp.Compare(p.rank(a), p.rank(b)),
			cmp.Compare(a.name, b.name),
		)
	})
	ids := make([]sat.Identifier, 0, len(cands))
	for _, c := range cands {
		if len(ids) == 0 || ids[len(ids)-1] != c.id {
			ids = append(ids, c.id)
		}
	}
	return ids
}

func boolFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

func isDefault(ch *catalog.Channel) bool { return ch != nil && ch.Package.DefaultChannel == ch.Name }

// rank is an entry's distance from its channel head along the replaces
// chain; entries off the chain come after, newest version first.
func (p *problem) rank(bv *bundleVar) int {
	r, ok := p.ranks[bv.ch]
	if !ok {
		r = channelRanks(bv.ch)
		p.ranks[bv.ch] = r
	}
	return r[bv.name]
}

func channelRanks(ch *catalog.Channel) map[string]int {
	r := map[string]int{}
	chain, _ := ch.ReplacesChain()
	for i, e := range chain {
		r[e.Name] = i
	}
	rest := slices.Clone(ch.Entries)
	slices.SortStableFunc(rest, func(a, b *catalog.Entry) int {
		if a.Bundle == nil || b.Bundle == nil || a.Bundle.Version == nil || b.Bundle.Version == nil {
			return strings.Compare(a.Name, b.Name)
		}
		return b.Bundle.Version.Compare(a.Bundle.Version)
	})
	for _, e := range rest {
		if _, ok := r[e.Name]; !ok {
			r[e.Name] = len(r)
		}
	}
	return r
}

// variables lists the problem for the solver: subscriptions first (their
// order is the order of preference), then bundles, then the at-most-one
// rules per package and per provided API.
func (p *problem) variables() []sat.Variable {
	var vars []sat.Variable
	for _, s := range p.subs {
		requires := s.noCandidates
		if requires == "" {
			requires = subscriptionRequires(s.sub.Name, s.ids)
		}
		vars = append(vars, sat.NewVar(s.id,
			sat.WithMessage(sat.Mandatory(), fmt.Sprintf("subscription %s exists", s.sub.Name)),
			sat.WithMessage(sat.Dependency(s.ids...), requires),
		))
	}
	byPackage := map[string][]sat.Identifier{}
	var pkgs []string
	for _, id := range p.order {
		bv := p.bundles[id]
		vars = append(vars, sat.NewVar(id, bv.constraints...))
		pkg := bv.pkg
		if _, ok := byPackage[pkg]; !ok {
			pkgs = append(pkgs, pkg)
		}
		byPackage[pkg] = append(byPackage[pkg], id)
	}
	for _, pkg := range pkgs {
		if ids := byPackage[pkg]; len(ids) > 1 {
			vars = append(vars, sat.NewVar(sat.Identifier("package "+pkg),
				sat.WithMessage(sat.AtMost(1, ids...), fmt.Sprintf("package %s permits at most one installed bundle", pkg))))
		}
	}
	// An API rule needs two packages providing the API: with one package
	// in the problem (a subscription without dependencies) there is none,
	// and indexing every bundle's APIs would be wasted.
	if len(pkgs) < 2 {
		return vars
	}
	vars = append(vars, p.nameRules()...)
	return append(vars, p.apiRules()...)
}

// nameRules are the at-most-one rules of the bundle names more than one
// package ships: a bundle installs as a ClusterServiceVersion of its name,
// and a namespace holds one object of a name, whatever APIs they provide.
func (p *problem) nameRules() []sat.Variable {
	vars := make([]sat.Variable, 0, len(p.shared))
	for _, name := range p.shared {
		var ids []sat.Identifier
		var pkgs []string
		for _, id := range p.order {
			if bv := p.bundles[id]; bv.name == name {
				ids = append(ids, id)
				if !slices.Contains(pkgs, bv.pkg) {
					pkgs = append(pkgs, bv.pkg)
				}
			}
		}
		vars = append(vars, sat.NewVar(sat.Identifier("name "+name), sat.WithMessage(sat.AtMost(1, ids...),
			fmt.Sprintf("packages %s each ship a bundle named %s: a namespace holds one ClusterServiceVersion of a name", strings.Join(pkgs, ", "), name))))
	}
	return vars
}

// apiRules are the at-most-one rules of the APIs that bundles of more than
// one package provide, in the order the APIs first appear.
func (p *problem) apiRules() []sat.Variable {
	var vars []sat.Variable
	byGVK := map[property.GVK][]sat.Identifier{}
	var gvks []property.GVK
	for _, id := range p.order {
		if bv := p.bundles[id]; bv.b != nil {
			for _, g := range bv.b.Props.GVKs {
				if _, ok := byGVK[g]; !ok {
					gvks = append(gvks, g)
				}
				byGVK[g] = append(byGVK[g], id)
			}
		}
	}
	for _, g := range gvks {
		ids := byGVK[g]
		if manyPackages(p, ids) {
			vars = append(vars, sat.NewVar(sat.Identifier("api "+g.String()),
				sat.WithMessage(sat.AtMost(1, ids...), fmt.Sprintf("API %s is provided by at most one operator", g))))
		}
	}
	return vars
}

// manyPackages tells whether ids come from more than one package. Every
// provided API of every bundle asks, so it answers without a set: most
// APIs have one providing package.
func manyPackages(p *problem, ids []sat.Identifier) bool {
	first := p.bundles[ids[0]].pkg
	for _, id := range ids[1:] {
		if p.bundles[id].pkg != first {
			return true
		}
	}
	return false
}

func subscriptionRequires(name string, ids []sat.Identifier) string {
	if len(ids) == 1 {
		return fmt.Sprintf("subscription %s requires %s", name, ids[0])
	}
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = string(id)
	}
	return fmt.Sprintf("subscription %s requires at least one of %s", name, strings.Join(s, ", "))
}
