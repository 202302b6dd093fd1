package reconciler

import (
	"os"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/apply"
)

// olmops diff previews what apply would delete: an object another plan of
// the cluster still contains is kept by prune and Remove, so the preview
// must keep it too, for a kept plan and for a plan that left the branch.
func TestPreviewKeepsSharedObjects(t *testing.T) {
	acme, err := os.ReadFile("../examples/clusters/prod-east/subscriptions/acme-db.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f := newFleetRepo(t, false, map[string][]byte{"clusters/staging/subscriptions/acme-db.yaml": acme})
	f.plan(t)
	ctx := t.Context()
	repo, err := gitsource.Open(ctx, gitsource.Options{URL: f.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: gitPassword}})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()
	commit, err := repo.Resolve(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	target := Target{Repo: repo, Commit: commit, Branch: "main", Cluster: "staging", Prune: true}
	reqs, _, err := Preview(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	// An object of acme-db's target, claimed by etcd's inventory and by
	// the inventory of a subscription that left the branch.
	var shared string
	for _, r := range reqs {
		if r.Subscription != "acme-db" || len(r.Hops) == 0 {
			continue
		}
		for _, o := range r.Hops[len(r.Hops)-1].Objects {
			if gvk := o.GroupVersionKind(); gvk.Kind == "Deployment" {
				shared = v1alpha1.ObjectRef{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()}.String()
			}
		}
	}
	if shared == "" {
		t.Fatalf("no acme-db plan on staging among %d requests", len(reqs))
	}
	target.Previous = []v1alpha1.SubscriptionStatus{
		{Namespace: "etcd-system", Name: "etcd", Inventory: []string{shared}},
		{Namespace: "etcd-system", Name: "gone", Inventory: []string{shared}},
	}
	reqs, removals, err := Preview(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	has := func(inv apply.Inventory) bool {
		for _, e := range parseInventory([]string{shared}) {
			if inv.Has(e) {
				return true
			}
		}
		return false
	}
	for _, r := range reqs {
		if r.Subscription == "etcd" && !has(r.Shared) {
			t.Errorf("etcd's preview may delete %s, which acme-db still contains (Shared = %v)", shared, r.Shared)
		}
	}
	if len(removals) != 1 || !has(removals[0].Shared) {
		t.Errorf("removals = %+v, want gone's with %s shared", removals, shared)
	}
}
