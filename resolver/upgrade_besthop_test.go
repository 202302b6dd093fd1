package resolver

import (
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
)

// twoHeadsCatalog: stable is a clean chain, broken has two heads, which
// OLM classic cannot order.
const twoHeadsCatalog = `
schema: olm.package
name: app
defaultChannel: stable
---
schema: olm.channel
package: app
name: stable
entries:
- name: app.v1.0.0
- name: app.v1.1.0
  replaces: app.v1.0.0
---
schema: olm.channel
package: app
name: broken
entries:
- name: app.v1.0.0
- name: app.v1.1.0
---
schema: olm.bundle
package: app
name: app.v1.0.0
image: quay.io/app/bundle:v1.0.0
properties:
- {type: olm.package, value: {packageName: app, version: 1.0.0}}
---
schema: olm.bundle
package: app
name: app.v1.1.0
image: quay.io/app/bundle:v1.1.0
properties:
- {type: olm.package, value: {packageName: app, version: 1.1.0}}
`

// A path's hop stops listing at its best candidate, but must fail where
// the full listing fails: here the first channel has a candidate and the
// second cannot be ordered.
func TestUpgradePathHopFailsLikeSuccessors(t *testing.T) {
	cfg, err := fbc.Decode("operatorhub.yaml", []byte(twoHeadsCatalog))
	if err != nil {
		t.Fatal(err)
	}
	cats := []*catalog.Catalog{catalog.New("operatorhub", cfg)} // invalid on purpose: not validated
	req := Request{Package: "app", Channels: []string{"stable", "broken"}, Policy: Classic, Installed: &Installed{Bundle: "app.v1.0.0"}}
	_, want := Successors(cats, req)
	if want == nil {
		t.Fatal("Successors over a channel with two heads succeeded; the fixture is wrong")
	}
	path, err := UpgradePath(cats, req)
	if err == nil || err.Error() != want.Error() {
		t.Fatalf("UpgradePath = %v, %v; want the error of Successors: %v", path, err, want)
	}
}
