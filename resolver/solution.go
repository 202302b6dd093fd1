package resolver

import (
	"slices"
	"strings"

	"github.com/olmops/olmops/resolver/sat"
)

// solution reads the solver's answer back into resolutions, proposed
// dependency subscriptions and cluster findings.
func (p *problem) solution(installed []sat.Variable) (*Solution, error) {
	on := make(map[sat.Identifier]bool, len(installed))
	for _, v := range installed {
		on[v.Identifier()] = true
	}
	sol := &Solution{}
	subscribed := map[string]bool{}
	for _, s := range p.subs {
		subscribed[s.sub.Package] = true
		sol.Subscriptions = append(sol.Subscriptions, p.resolution(s, on))
	}
	for _, id := range p.order {
		bv := p.bundles[id]
		if !on[id] || bv.b == nil {
			continue
		}
		if f, ok := OpenShiftBlocker(bv.b, p.ns.Cluster.OpenShiftVersion); ok {
			sol.Findings = append(sol.Findings, f)
		}
		if subscribed[bv.pkg] {
			continue
		}
		sol.Dependencies = append(sol.Dependencies, Dependency{
			Name:        dependencyName(bv),
			Package:     bv.pkg,
			Catalog:     bv.cat,
			Channel:     bv.ch,
			Bundle:      bv.b,
			StartingCSV: bv.name,
			RequiredBy:  p.requiredBy(id, on),
		})
	}
	return sol, nil
}

func (p *problem) resolution(s subscriptionVar, on map[sat.Identifier]bool) Resolution {
	r := Resolution{Name: s.sub.Name, Package: s.sub.Package, Held: s.sub.Held, Warnings: s.result.Warnings}
	for i, id := range s.ids {
		if !on[id] {
			continue
		}
		c := s.candidates[i]
		r.Catalog, r.Channel, r.Bundle, r.BundleName, r.Edge = c.Catalog, c.Channel, c.Bundle, c.Name(), c.Edge
		r.Path = p.path(s, c)
		break
	}
	return r
}

// path is every hop repeated resolution would take from the installed
// bundle, starting with the chosen one. Only Classic moves one version at a
// time; the rest of its path is followed without re-solving dependencies,
// which the next resolution does.
func (p *problem) path(s subscriptionVar, c Candidate) []Hop {
	first := Hop{Catalog: c.Catalog, Channel: c.Channel, Bundle: c.Bundle, Edge: c.Edge}
	if c.Edge.Kind == EdgeStay || s.sub.Held != "" || s.sub.Policy != Classic || s.sub.Installed == nil {
		return []Hop{first}
	}
	hops, err := upgradePathFrom(p.ns.Catalogs, s.sub.Request, p.orders, &s.result)
	if err != nil || len(hops) == 0 || hops[0].Edge.To != c.Name() {
		return []Hop{first}
	}
	return hops
}

func (p *problem) requiredBy(id sat.Identifier, on map[sat.Identifier]bool) []string {
	var out []string
	for _, oid := range p.order {
		bv := p.bundles[oid]
		if !on[oid] {
			continue
		}
		for _, dep := range bv.deps {
			if slices.Contains(dep, id) {
				out = append(out, bv.name)
				break
			}
		}
	}
	return out
}

// dependencyName is OLM's name for a generated subscription:
// <package>-<channel>-<catalog>, slashes turned into dashes.
func dependencyName(bv *bundleVar) string {
	parts := []string{bv.pkg}
	if bv.ch != nil {
		parts = append(parts, bv.ch.Name)
	}
	if bv.cat != nil {
		parts = append(parts, strings.ReplaceAll(bv.cat.Name, "/", "-"))
	}
	return strings.Join(parts, "-")
}
