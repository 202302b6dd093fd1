package plan

import (
	"context"
	"fmt"

	mm "github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/semver"
	"github.com/olmops/olmops/resolver"
)

// promote applies the cluster's promotion to a resolved namespace: each
// subscription that would move is held where it is, or capped at what the
// followed clusters have soaked, and the namespace is resolved again with
// those limits. A subscription not installed yet that must wait is left
// out: nothing is planned for it. It returns the members and solution to
// plan, and the evidence to show in each promoted plan's proposal.
func (pl *planner) promote(ctx context.Context, ns namespaceMembers, subs []resolver.Subscription, sol *resolver.Solution) (namespaceMembers, *resolver.Solution, map[Key][]string, error) {
	evidence := map[Key][]string{}
	kept := namespaceMembers{name: ns.name}
	var keptSubs []resolver.Subscription
	caps := map[Key]*semver.Version{}
	judged := map[Key]bool{}
	for i, r := range sol.Subscriptions {
		m, req := ns.members[i], subs[i].Request
		if !moves(r) {
			kept.members, keptSubs = append(kept.members, m), append(keptSubs, subs[i])
			continue
		}
		judged[m.key] = true
		target := r.Path[len(r.Path)-1].Bundle
		d := pl.in.Promotion.decide(target.Package, target)
		installed, err := installedVersion(req, target.Package)
		if err != nil && (d.hold || d.atMost != nil) {
			return ns, nil, nil, fmt.Errorf("%s: promotion: %w", m.where(), err)
		}
		if !d.hold && d.atMost != nil && installed != nil && !installed.LessThan(d.atMost) {
			d.hold = true
			d.message = fmt.Sprintf("waiting for promotion: the followed clusters have soaked %s, no newer than the installed %s", d.atMostBundle, req.Installed.Bundle)
		}
		switch {
		case d.hold:
			pl.holds = append(pl.holds, Hold{Key: m.key, Package: target.Package.Name, Target: target.Name, Stopped: d.stopped, Message: d.message, Until: d.until})
			if installed == nil {
				continue // not installed: nothing to plan until it may be
			}
			req.AtMost = installed
		case d.atMost != nil:
			req.AtMost = d.atMost
			evidence[m.key] = append(d.evidence, d.message)
		default:
			evidence[m.key] = d.evidence
		}
		if req.AtMost != nil {
			caps[m.key] = req.AtMost
		}
		kept.members, keptSubs = append(kept.members, m), append(keptSubs, resolver.Subscription{Request: req})
	}
	if len(caps) == 0 && len(kept.members) == len(ns.members) {
		return ns, sol, evidence, nil
	}
	sol, err := pl.resolve(ctx, keptSubs)
	if err != nil {
		return ns, nil, nil, fmt.Errorf("with promotion's limits: %w", err)
	}
	for i, r := range sol.Subscriptions {
		k := kept.members[i].key
		if moves(r) && !judged[k] {
			// Another's cap made it move: it was never weighed. Refuse.
			return ns, nil, nil, fmt.Errorf("%s: promotion: moves to %s only under another subscription's cap, unweighed", kept.members[i].where(), r.BundleName)
		}
		limit, capped := caps[k]
		if !capped || !moves(r) {
			continue
		}
		// The resolver honours AtMost; refuse rather than trust it blindly.
		if b := r.Path[len(r.Path)-1].Bundle; b == nil || b.Version == nil || b.Version.GreaterThan(limit) {
			return ns, nil, nil, fmt.Errorf("%s: promotion: resolved %s beyond the soaked %s", kept.members[i].where(), r.BundleName, limit)
		}
	}
	return kept, sol, evidence, nil
}

// moves tells a resolution that changes the bundle: an upgrade or install.
func moves(r resolver.Resolution) bool {
	return r.Edge.Kind != resolver.EdgeStay && len(r.Path) > 0 && r.Path[len(r.Path)-1].Bundle != nil
}

// installedVersion is the version of the request's installed bundle, nil
// for a fresh install; an error when it is installed but its version is
// unknown, as it cannot then be held there.
func installedVersion(req resolver.Request, pkg *catalog.Package) (*semver.Version, error) {
	in := req.Installed
	if in == nil {
		return nil, nil
	}
	if in.Version != "" {
		if v, err := mm.NewVersion(in.Version); err == nil {
			return v, nil
		}
	}
	if b := pkg.Bundles[in.Bundle]; b != nil && b.Version != nil {
		return b.Version, nil
	}
	return nil, fmt.Errorf("cannot hold it at the installed %s: its version is unknown", in.Bundle)
}
