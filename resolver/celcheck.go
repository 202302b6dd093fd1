package resolver

import (
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
)

// CheckCEL compiles every cel rule of the catalog's olm.constraint
// properties, compounds included, in OLM's environment. opm does not
// compile them and OLM only when something resolves to the bundle, so a
// rule that does not compile is a warning at its property's line, not a
// validation error: the catalog is one opm accepts. Constraints that do not
// parse are Validate's to report.
func CheckCEL(c *catalog.Catalog) catalog.Problems {
	var out catalog.Problems
	for _, pn := range c.PackageNames() {
		pkg := c.Packages[pn]
		for _, bn := range pkg.BundleNames() {
			b := pkg.Bundles[bn]
			for _, pr := range b.Properties {
				if pr.Type != property.TypeConstraint {
					continue
				}
				con, err := property.ParseConstraint(pr.Value)
				if err != nil {
					continue
				}
				for _, rule := range celRules(con, 0) {
					if _, err := compileCEL(rule); err != nil {
						out = append(out, catalog.Problem{Pos: pr.Pos, Package: pn, Bundle: bn,
							Message: "bundle " + bn + ": olm.constraint: " + err.Error() + " (opm accepts it; OLM fails when it resolves this bundle)"})
					}
				}
			}
		}
	}
	return out
}

// celRules lists the cel rules of a constraint and of its compounds.
func celRules(c property.Constraint, depth int) []string {
	if depth > maxConstraintDepth {
		return nil
	}
	if c.Cel != nil {
		return []string{c.Cel.Rule}
	}
	var rules []string
	for _, comp := range []*property.Compound{c.All, c.Any, c.Not} {
		if comp == nil {
			continue
		}
		for _, sc := range comp.Constraints {
			rules = append(rules, celRules(sc, depth+1)...)
		}
	}
	return rules
}
