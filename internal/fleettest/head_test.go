package fleettest

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
)

// NewHead's bundle heads the default channel, replacing the head before
// it, and the catalog stays valid; its Manual Subscriptions say so.
func TestNewHead(t *testing.T) {
	f := Write(t, Options{Clusters: 1, Subscriptions: 2, BundlesPath: "bundles/community", Manual: 1})
	pkg := f.Packages[0]
	old, err := pkg.Channels[pkg.DefaultChannel].Head()
	if err != nil {
		t.Fatal(err)
	}
	f.NewHead(t, pkg, "99.0.1")
	files := f.NewHead(t, pkg, "99.0.2")
	if _, ok := files["bundles/community/"+pkg.Name+".v99.0.2/manifests/csv.yaml"]; !ok || len(files) != 2 {
		t.Errorf("changed files %v, want the catalog file and the new bundle's CSV", slices.Sorted(maps.Keys(files)))
	}
	cat, err := catalog.LoadDir(t.Context(), filepath.Join(f.Dir, "catalogs/community"), "community")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cat.Validate() {
		if p.Package == pkg.Name {
			t.Errorf("the catalog after NewHead: %v", p)
		}
	}
	ch := cat.Packages[pkg.Name].Channels[pkg.DefaultChannel]
	head, err := ch.Head()
	if err != nil {
		t.Fatal(err)
	}
	if head.Name != pkg.Name+".v99.0.2" || head.Replaces != pkg.Name+".v99.0.1" || ch.Entry(pkg.Name+".v99.0.1").Replaces != old.Name {
		t.Errorf("head %+v, want %s.v99.0.2 replacing v99.0.1 replacing %s", head, pkg.Name, old.Name)
	}
	for i, p := range f.Packages {
		data, err := os.ReadFile(filepath.Join(f.Dir, "clusters/c000/subscriptions", p.Name+".yaml"))
		if err != nil {
			t.Fatal(err)
		}
		sub := string(data)
		if manual := strings.Contains(sub, "installPlanApproval: Manual"); manual != (i == 0) {
			t.Errorf("subscription %s: Manual is %v:\n%s", p.Name, manual, sub)
		}
	}
}
