package resolver_test

import (
	"fmt"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/resolver"
)

const exampleFBC = `
schema: olm.package
name: etcd
defaultChannel: stable
---
schema: olm.channel
package: etcd
name: stable
entries:
  - name: etcd.v0.9.0
  - name: etcd.v0.9.2
    replaces: etcd.v0.9.0
  - name: etcd.v0.9.4
    replaces: etcd.v0.9.2
    skipRange: ">=0.9.0 <0.9.4"
---
schema: olm.bundle
package: etcd
name: etcd.v0.9.0
image: example.com/etcd:v0.9.0
properties: [{type: olm.package, value: {packageName: etcd, version: 0.9.0}}]
---
schema: olm.bundle
package: etcd
name: etcd.v0.9.2
image: example.com/etcd:v0.9.2
properties: [{type: olm.package, value: {packageName: etcd, version: 0.9.2}}]
---
schema: olm.bundle
package: etcd
name: etcd.v0.9.4
image: example.com/etcd:v0.9.4
properties: [{type: olm.package, value: {packageName: etcd, version: 0.9.4}}]
`

func ExampleSuccessors() {
	cfg, err := fbc.Decode("catalog.yaml", []byte(exampleFBC))
	if err != nil {
		panic(err)
	}
	cats := []*catalog.Catalog{catalog.New("operators", cfg)}
	for _, policy := range []resolver.Policy{resolver.Semver, resolver.Classic} {
		res, err := resolver.Successors(cats, resolver.Request{
			Package:   "etcd",
			Channels:  []string{"stable"},
			Installed: &resolver.Installed{Bundle: "etcd.v0.9.0", Version: "0.9.0"},
			Policy:    policy,
		})
		if err != nil {
			panic(err)
		}
		fmt.Println(policy, "->", res.Best().Edge)
	}
	// Output:
	// Semver -> etcd.v0.9.0 -> etcd.v0.9.4 (skipRange ">=0.9.0 <0.9.4")
	// Classic -> etcd.v0.9.0 -> etcd.v0.9.4 (skipRange ">=0.9.0 <0.9.4")
}

func ExampleUpgradePath() {
	cfg, err := fbc.Decode("catalog.yaml", []byte(exampleFBC))
	if err != nil {
		panic(err)
	}
	path, err := resolver.UpgradePath([]*catalog.Catalog{catalog.New("operators", cfg)}, resolver.Request{
		Package:   "etcd",
		Installed: &resolver.Installed{Bundle: "etcd.v0.9.0"},
		Policy:    resolver.Classic,
	})
	if err != nil {
		panic(err)
	}
	for _, hop := range path {
		fmt.Println(hop.Edge)
	}
	// Output:
	// etcd.v0.9.0 -> etcd.v0.9.4 (skipRange ">=0.9.0 <0.9.4")
}
