package review_test

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing/fstest"

	"github.com/olmops/olmops/review"
)

// A pull request that raises acme-db's requirement on etcd beyond any etcd
// the catalogs have: both subscriptions of the namespace stop resolving.
func ExampleCompare_review() {
	ctx := context.Background()
	base := os.DirFS("../examples")
	head := fstest.MapFS{}
	_ = fs.WalkDir(base, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := fs.ReadFile(base, p)
			head[p] = &fstest.MapFile{Data: data}
		}
		return err
	})
	const file = "catalogs/internal/acme-db/catalog.yaml"
	head[file].Data = []byte(strings.ReplaceAll(string(head[file].Data), `">=0.9.2 <0.11.0"`, `">=2.0.0"`))

	r, err := review.Compare(ctx,
		review.Tree{Commit: review.Commit{Rev: "main"}, FS: base},
		review.Tree{Commit: review.Commit{Rev: "pr"}, FS: head},
		review.Options{Branch: "main"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Summary())
	for _, im := range r.Impact {
		fmt.Println(im.Line())
	}
	fmt.Println("fails:", r.Failed(false))
	// Output:
	// 2 errors, 0 warnings · 0 subscriptions to plan on 0 clusters · 1 package changed
	// prod-east/etcd-system/acme-db: 1.1.0 → does not resolve
	// prod-east/etcd-system/etcd: 0.9.2 → does not resolve
	// fails: true
}
