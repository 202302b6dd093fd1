package resolver

import (
	"testing"

	"github.com/olmops/olmops/catalog"
)

// A CSV's spec.minKubeVersion (in olm.csv.metadata) keeps a bundle off
// an older cluster, as olm.kubeversion does; an unknown cluster version
// filters nothing.
func TestMinKubeVersion(t *testing.T) {
	cat := testCatalog(t, "c", `schema: olm.package
name: k
defaultChannel: stable
---
schema: olm.channel
package: k
name: stable
entries:
- name: k.v1.0.0
- name: k.v2.0.0
  replaces: k.v1.0.0
---
schema: olm.bundle
package: k
name: k.v1.0.0
image: example.com/k:v1
properties:
- {type: olm.package, value: {packageName: k, version: 1.0.0}}
- {type: olm.csv.metadata, value: {minKubeVersion: 1.20.0, displayName: K}}
---
schema: olm.bundle
package: k
name: k.v2.0.0
image: example.com/k:v2
properties:
- {type: olm.package, value: {packageName: k, version: 2.0.0}}
- {type: olm.csv.metadata, value: {minKubeVersion: 1.31.0, displayName: K}}
`)
	for _, tc := range []struct{ kube, want string }{{"1.30.4", "k.v1.0.0"}, {"1.31.0", "k.v2.0.0"}, {"", "k.v2.0.0"}} {
		t.Run("kubernetes "+tc.kube, func(t *testing.T) {
			sol, err := Resolve(t.Context(), Namespace{Catalogs: []*catalog.Catalog{cat}, Cluster: Cluster{KubernetesVersion: tc.kube},
				Subscriptions: []Subscription{{Request: Request{Name: "k", Package: "k", Policy: Classic}}}})
			if err != nil {
				t.Fatal(err)
			}
			if got := sol.Subscriptions[0].BundleName; got != tc.want {
				t.Errorf("resolved %s, want %s", got, tc.want)
			}
		})
	}
}
