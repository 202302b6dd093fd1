package plan

import (
	"strings"
	"testing"
	"testing/fstest"
)

// A catalog edit that leaves a plan's path alone leaves the plan alone: a
// new image for a bundle of a channel the subscription does not follow is
// not a Refresh (issue 13, item 5). An edit to a bundle on the path is.
func TestUnrelatedCatalogEditIsNoChange(t *testing.T) {
	settled := settle(t, example(t), "prod-east")
	const catPath = "catalogs/operatorhub/etcd/catalog.yaml"
	tests := []struct {
		name string
		old  string // in the etcd catalog
		new  string
		want State
	}{
		{name: "new image of a bundle only in an unfollowed channel",
			old: "image: quay.io/olmops-examples/etcd-operator-bundle:v0.10.0", new: "image: quay.io/olmops-examples/etcd-operator-bundle@sha256:" + strings.Repeat("1", 64), want: UpToDate},
		{name: "a new skip in an unfollowed channel",
			old: "      - etcdoperator.v0.9.2\n", new: "      - etcdoperator.v0.9.2\n      - etcdoperator.v0.9.0\n", want: UpToDate},
		{name: "new image of the bundle installed",
			old: "image: quay.io/olmops-examples/etcd-operator-bundle:v0.9.4", new: "image: quay.io/olmops-examples/etcd-operator-bundle@sha256:" + strings.Repeat("2", 64), want: Refresh},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edited := example(t)
			cat := string(mustRead(t, edited, catPath))
			if !strings.Contains(cat, tt.old) {
				t.Fatalf("%q not in %s", tt.old, catPath)
			}
			edited[catPath] = &fstest.MapFile{Data: []byte(strings.Replace(cat, tt.old, tt.new, 1))}
			p := find(t, plan(t, input(t, edited, "prod-east", settled)), "etcd-system/etcd")
			if p.State != tt.want {
				t.Fatalf("state %s, want %s; catalog digest %s → %s", p.State, tt.want, settled[p.Key].Plan.Spec.Catalog.Digest, p.File.Spec.Catalog.Digest)
			}
		})
	}
}
