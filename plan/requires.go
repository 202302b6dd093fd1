package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
)

// Requirements are what a bundle needs from other operators of its
// namespace: packages (olm.package.required, package constraints) and APIs
// (olm.gvk.required, gvk constraints). Constraints under `all` count, as
// each must hold; `any`, `not` and CEL do not name one provider, so they
// are left to the resolver.
type Requirements struct {
	Packages []property.PackageRequired
	APIs     []property.GVK
}

// maxConstraintDepth bounds the nesting of `all` read for requirements.
const maxConstraintDepth = 32

// Requires lists b's requirements.
func Requires(b *catalog.Bundle) Requirements {
	r := Requirements{
		Packages: slices.Clone(b.Props.PackagesRequired),
		APIs:     slices.Clone(b.Props.GVKsRequired),
	}
	for _, c := range b.Props.Constraints {
		r.addConstraint(c, 0)
	}
	return r
}

func (r *Requirements) addConstraint(c property.Constraint, depth int) {
	switch {
	case depth > maxConstraintDepth: // a hostile catalog's nesting, as the resolver bounds it
	case c.GVK != nil:
		r.APIs = append(r.APIs, *c.GVK)
	case c.Package != nil:
		r.Packages = append(r.Packages, *c.Package)
	case c.All != nil:
		for _, sc := range c.All.Constraints {
			r.addConstraint(sc, depth+1)
		}
	}
}

// Empty reports a bundle that needs nothing of other operators.
func (r Requirements) Empty() bool { return len(r.Packages) == 0 && len(r.APIs) == 0 }

// From lists, in words, what of r the provider bundle gives: its APIs as
// "EtcdCluster (etcd.database.coreos.com/v1beta2)", or, when only the
// package is required, "package etcd (>=0.9.2)". Empty when it gives none.
func (r Requirements) From(provider *catalog.Bundle) []string {
	var out []string
	for _, g := range r.APIs {
		if slices.Contains(provider.Props.GVKs, g) {
			out = appendNew(out, API(g))
		}
	}
	if len(out) > 0 || provider.Package == nil {
		return out
	}
	for _, p := range r.Packages {
		if p.PackageName == provider.Package.Name {
			w := "package " + p.PackageName
			if p.VersionRange != "" {
				w += " (" + p.VersionRange + ")"
			}
			out = appendNew(out, w)
		}
	}
	return out
}

// API words a GVK the way people read it: "Kind (group/version)".
func API(g property.GVK) string {
	return fmt.Sprintf("%s (%s)", g.Kind, strings.TrimPrefix(g.Group+"/"+g.Version, "/"))
}

func appendNew(s []string, x string) []string {
	if slices.Contains(s, x) {
		return s
	}
	return append(s, x)
}
