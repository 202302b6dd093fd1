package resolver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
)

// pkgDoc is a one-bundle package whose one channel is its default.
func pkgDoc(pkg, channel string, props ...string) string {
	b := pkg + ".v1.0.0"
	doc := fmt.Sprintf("---\nschema: olm.package\nname: %s\ndefaultChannel: %s\n---\nschema: olm.channel\npackage: %s\nname: %s\nentries: [{name: %s}]\n---\nschema: olm.bundle\npackage: %s\nname: %s\nimage: example.com/%s:v1\nproperties:\n- {type: olm.package, value: {packageName: %s, version: 1.0.0}}\n",
		pkg, channel, pkg, channel, b, pkg, b, pkg, pkg)
	for _, p := range props {
		doc += "- " + p + "\n"
	}
	return doc
}

const provideZ = "{type: olm.gvk, value: {group: z.io, kind: Z, version: v1}}"

// TestDependencyCandidateOrder pins issue 15 item 6 with the example of
// docs/resolver-semantics.md: app (subscribed from community) needs
// package db, found only in partner; db needs the API Z, which community,
// partner and certified all provide. OLM looks first in the dependent's
// (db's) catalog, then by catalog priority, then by package name, then
// channel (default first), then position.
func TestDependencyCandidateOrder(t *testing.T) {
	needDB := `{type: olm.package.required, value: {packageName: db, versionRange: ">=1.0.0"}}`
	needZ := "{type: olm.gvk.required, value: {group: z.io, kind: Z, version: v1}}"
	for _, tc := range []struct {
		name             string
		partnerProviders string
		want             string
	}{
		{name: "the dependent's catalog first, then package name before channel name",
			// bbb's channel sorts before aaa's: only the package-name key picks aaa.
			partnerProviders: pkgDoc("bbb", "alpha", provideZ) + pkgDoc("aaa", "stable", provideZ),
			want:             "partner/aaa"},
		{name: "then catalog priority, over the subscription's catalog",
			want: "certified/zcert"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			community := testCatalog(t, "community", pkgDoc("app", "stable", needDB)+pkgDoc("zcommunity", "stable", provideZ))
			partner := testCatalog(t, "partner", pkgDoc("db", "stable", needZ)+tc.partnerProviders)
			certified := testCatalog(t, "certified", pkgDoc("zcert", "stable", provideZ))
			certified.Priority = 10
			ns := Namespace{
				Catalogs:      []*catalog.Catalog{community, partner, certified},
				Subscriptions: []Subscription{{Request: Request{Name: "app", Package: "app", Catalog: "community", Policy: Classic}}},
			}
			sol, err := Resolve(t.Context(), ns)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, d := range sol.Dependencies {
				if d.Package != "db" {
					got = append(got, d.Catalog.Name+"/"+d.Package)
				}
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("provider of Z = %v, want %s", got, tc.want)
			}
		})
	}
}
