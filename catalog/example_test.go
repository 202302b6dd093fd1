package catalog_test

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/olmops/olmops/catalog"
)

// A catalog that decodes loads; Validate then lists every rule of opm
// validate it breaks, each with the file and line to fix.
func ExampleLoadDir() {
	c, err := catalog.LoadDir(context.Background(), "testdata/example", "example")
	if err != nil {
		fmt.Println("load:", err)
		return
	}
	for _, p := range c.Validate() {
		fmt.Printf("%s:%d: %s\n", filepath.ToSlash(p.Pos.File), p.Pos.Line, p.Message)
	}
	// Output:
	// testdata/example/etcd/catalog.yaml:6: invalid package "etcd": invalid channel "stable": multiple channel heads found in graph: etcd.v0.9.4, etcd.v0.9.5
	// testdata/example/etcd/catalog.yaml:14: no olm.bundle blobs found in package "etcd" for olm.channel entries [etcd.v0.9.5]
}
