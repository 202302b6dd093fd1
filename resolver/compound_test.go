package resolver

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
)

// compoundCatalog: app's one bundle carries the constraint under test;
// alpha 1.0.0 provides X, alpha 2.0.0 provides X and Y, beta provides Y,
// gamma provides X.
const compoundCatalog = `
schema: olm.package
name: app
defaultChannel: stable
---
schema: olm.channel
package: app
name: stable
entries: [{name: app.v1.0.0}]
---
schema: olm.bundle
package: app
name: app.v1.0.0
image: example.com/app:v1.0.0
properties:
- {type: olm.package, value: {packageName: app, version: 1.0.0}}
- {type: olm.constraint, value: CONSTRAINT}
` + compoundProviders

const compoundProviders = `---
schema: olm.package
name: alpha
defaultChannel: stable
---
schema: olm.channel
package: alpha
name: stable
entries: [{name: alpha.v1.0.0}, {name: alpha.v2.0.0, replaces: alpha.v1.0.0}]
---
schema: olm.bundle
package: alpha
name: alpha.v1.0.0
image: example.com/alpha:v1.0.0
properties:
- {type: olm.package, value: {packageName: alpha, version: 1.0.0}}
- {type: olm.gvk, value: {group: x.io, kind: X, version: v1}}
---
schema: olm.bundle
package: alpha
name: alpha.v2.0.0
image: example.com/alpha:v2.0.0
properties:
- {type: olm.package, value: {packageName: alpha, version: 2.0.0}}
- {type: olm.gvk, value: {group: x.io, kind: X, version: v1}}
- {type: olm.gvk, value: {group: y.io, kind: Y, version: v1}}
---
schema: olm.package
name: beta
defaultChannel: stable
---
schema: olm.channel
package: beta
name: stable
entries: [{name: beta.v1.0.0}]
---
schema: olm.bundle
package: beta
name: beta.v1.0.0
image: example.com/beta:v1.0.0
properties:
- {type: olm.package, value: {packageName: beta, version: 1.0.0}}
- {type: olm.gvk, value: {group: y.io, kind: Y, version: v1}}
---
schema: olm.package
name: gamma
defaultChannel: stable
---
schema: olm.channel
package: gamma
name: stable
entries: [{name: gamma.v1.0.0}]
---
schema: olm.bundle
package: gamma
name: gamma.v1.0.0
image: example.com/gamma:v1.0.0
properties:
- {type: olm.package, value: {packageName: gamma, version: 1.0.0}}
- {type: olm.gvk, value: {group: x.io, kind: X, version: v1}}
`

// TestCompoundConstraints pins issue 15 item 5 with the shapes of OLM's
// own compound-constraint cases: an olm.constraint is one predicate over
// one candidate bundle, all/any/not combine predicates, and the dependent
// needs one bundle that satisfies it.
func TestCompoundConstraints(t *testing.T) {
	const (
		pkgAlpha1 = `{package: {packageName: alpha, versionRange: "<2.0.0"}}`
		pkgAlpha  = `{package: {packageName: alpha, versionRange: ">=1.0.0"}}`
		pkgBeta   = `{package: {packageName: beta, versionRange: ">=1.0.0"}}`
		pkgGamma  = `{package: {packageName: gamma, versionRange: ">=1.0.0"}}`
		gvkX      = `{gvk: {group: x.io, kind: X, version: v1}}`
		gvkY      = `{gvk: {group: y.io, kind: Y, version: v1}}`
		gvkZ      = `{gvk: {group: z.io, kind: Z, version: v1}}`
	)
	all := func(cs ...string) string { return `{all: {constraints: [` + strings.Join(cs, ", ") + `]}}` }
	anyOf := func(cs ...string) string { return `{any: {constraints: [` + strings.Join(cs, ", ") + `]}}` }
	not := func(cs ...string) string { return `{not: {constraints: [` + strings.Join(cs, ", ") + `]}}` }
	for _, tc := range []struct {
		name       string
		constraint string
		alsoSub    string   // a second subscription in the namespace
		wantDeps   []string // package/bundle of each proposed dependency
		unsat      bool
	}{
		{name: "all: one bundle must be both", constraint: all(pkgAlpha, gvkY),
			wantDeps: []string{"alpha/alpha.v2.0.0"}},
		{name: "all: two bundles that each satisfy a part do not count", constraint: all(pkgAlpha1, gvkY),
			unsat: true},
		{name: "any: the first satisfiable leaf's bundle", constraint: anyOf(gvkZ, pkgBeta),
			wantDeps: []string{"beta/beta.v1.0.0"}},
		{name: "any: none satisfiable", constraint: anyOf(gvkZ), unsat: true},
		{name: "all with not: the candidate must not match", constraint: all(pkgAlpha, not(gvkY)),
			wantDeps: []string{"alpha/alpha.v1.0.0"}},
		{name: "all with not picks another package", constraint: all(gvkX, not(pkgAlpha)),
			wantDeps: []string{"gamma/gamma.v1.0.0"}},
		{name: "nested any inside all", constraint: all(anyOf(pkgBeta, pkgGamma), gvkX),
			wantDeps: []string{"gamma/gamma.v1.0.0"}},
		{name: "not is a predicate, not a ban on the namespace", constraint: not(pkgAlpha), alsoSub: "alpha"},
		{name: "double not is the predicate itself", constraint: not(not(pkgBeta)),
			wantDeps: []string{"beta/beta.v1.0.0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := testCatalog(t, "hub", strings.Replace(compoundCatalog, "CONSTRAINT", tc.constraint, 1))
			ns := Namespace{Catalogs: []*catalog.Catalog{cat}, Subscriptions: []Subscription{{Request: Request{Name: "app", Package: "app", Policy: Classic}}}}
			if tc.alsoSub != "" {
				ns.Subscriptions = append(ns.Subscriptions, Subscription{Request: Request{Name: tc.alsoSub, Package: tc.alsoSub, Policy: Classic}})
			}
			sol, err := Resolve(t.Context(), ns)
			var u *Unsatisfiable
			if tc.unsat {
				if !errors.As(err, &u) {
					t.Fatalf("Resolve = %+v, %v; want Unsatisfiable", sol, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var deps []string
			for _, d := range sol.Dependencies {
				deps = append(deps, d.Package+"/"+d.StartingCSV)
			}
			if !slices.Equal(deps, tc.wantDeps) {
				t.Errorf("dependencies %q, want %q", deps, tc.wantDeps)
			}
		})
	}
}
