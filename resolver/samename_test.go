package resolver

import (
	"errors"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
)

// twinsCatalog holds two packages that ship bundles of the same names, as
// couchbase-enterprise-certified and couchbase-enterprise-certified-rhmp
// do in ocp-v4.20. The GVK placeholder lets a case give the twins an API
// of their own or the same one.
const twinsCatalog = `
schema: olm.package
name: db
defaultChannel: stable
---
schema: olm.channel
package: db
name: stable
entries:
- name: db-operator.v1.0.0
---
schema: olm.bundle
package: db
name: db-operator.v1.0.0
image: quay.io/db/bundle:v1.0.0
properties:
- {type: olm.package, value: {packageName: db, version: 1.0.0}}
- {type: olm.gvk, value: {group: db.io, kind: Cluster, version: v1}}
---
schema: olm.package
name: db-marketplace
defaultChannel: CHANNEL
---
schema: olm.channel
package: db-marketplace
name: CHANNEL
entries:
- name: db-operator.v1.0.0
---
schema: olm.bundle
package: db-marketplace
name: db-operator.v1.0.0
image: quay.io/db/marketplace-bundle:v1.0.0
properties:
- {type: olm.package, value: {packageName: db-marketplace, version: 1.0.0}}
- {type: olm.gvk, value: {group: GROUP, kind: Cluster, version: v1}}
`

// Two packages' bundles of one name are two operators: a namespace that
// subscribes to both cannot hold them (one ClusterServiceVersion of a
// name; here and in ocp-v4.20 also the same APIs). The resolver used to
// give both one variable, so one bundle satisfied both subscriptions and
// the namespace "resolved" into two CSVs of one name.
func TestSameBundleNameInTwoPackages(t *testing.T) {
	const errorHas = "packages db, db-marketplace each ship a bundle named db-operator.v1.0.0"
	for _, tc := range []struct{ name, channel, group string }{
		{"same channel, same API", "stable", "db.io"},
		{"same channel, own API", "stable", "market.db.io"},
		{"other channel, own API", "fast", "market.db.io"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := strings.NewReplacer("CHANNEL", tc.channel, "GROUP", tc.group).Replace(twinsCatalog)
			cats := []*catalog.Catalog{testCatalog(t, "operatorhub", doc)}
			for _, pkg := range []string{"db", "db-marketplace"} {
				sol, err := Resolve(t.Context(), Namespace{Catalogs: cats, Subscriptions: []Subscription{{Request: Request{Name: pkg, Package: pkg}}}})
				if err != nil {
					t.Fatalf("%s alone: %v", pkg, err)
				}
				if got := sol.Subscriptions[0]; got.Bundle == nil || got.Bundle.Package.Name != pkg {
					t.Fatalf("%s alone resolves to %+v, want its own bundle", pkg, got.Bundle)
				}
			}
			both := []Subscription{{Request: Request{Name: "db", Package: "db"}}, {Request: Request{Name: "db-marketplace", Package: "db-marketplace"}}}
			_, err := Resolve(t.Context(), Namespace{Catalogs: cats, Subscriptions: both})
			var u *Unsatisfiable
			if !errors.As(err, &u) || !strings.Contains(err.Error(), errorHas) {
				t.Fatalf("both in one namespace: %v, want unsatisfiable naming %q", err, errorHas)
			}
		})
	}
}
