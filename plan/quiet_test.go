package plan

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmops/olmops/api/v1alpha1"
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

// Each plan says in one line what it changes: the versions and hops of an
// upgrade, the objects of a manifest change, and for a Refresh with the
// same manifests, what moved instead of "manifests changed".
func TestPlanSummary(t *testing.T) {
	fsys := example(t)
	first := plan(t, input(t, fsys, "prod-east", nil))
	settled := settle(t, fsys, "prod-east")
	edit := func(path, old, new string) fstest.MapFS {
		edited := example(t)
		data := string(mustRead(t, edited, path))
		if !strings.Contains(data, old) {
			t.Fatalf("%q not in %s", old, path)
		}
		edited[path] = &fstest.MapFile{Data: []byte(strings.Replace(data, old, new, 1))}
		return edited
	}
	config := edit("clusters/prod-east/subscriptions/etcd.yaml", "startingCSV: etcdoperator.v0.9.2\n", "startingCSV: etcdoperator.v0.9.2\n  config:\n    env:\n      - {name: LOG_LEVEL, value: debug}\n")
	image := edit("catalogs/operatorhub/etcd/catalog.yaml", "image: quay.io/olmops-examples/etcd-operator-bundle:v0.9.4", "image: quay.io/olmops-examples/etcd-operator-bundle@sha256:"+strings.Repeat("2", 64))
	tests := []struct {
		name  string
		res   *Result
		key   string
		want  string
		title string
	}{
		{name: "install", res: first, key: "etcd-system/etcd", want: "etcd-system/etcd: install etcd 0.9.2"},
		{name: "upgrade", res: plan(t, input(t, fsys, "prod-east", commit(t, first))), key: "etcd-system/etcd", want: "etcd-system/etcd: 0.9.2 → 0.9.4"},
		{name: "config", res: plan(t, input(t, config, "prod-east", settled)), key: "etcd-system/etcd",
			want: "etcd-system/etcd: manifests changed: Deployment/etcd-operator env", title: "etcd 0.9.4: manifests changed (prod-east/etcd-system)"},
		{name: "catalog entry", res: plan(t, input(t, image, "prod-east", settled)), key: "etcd-system/etcd",
			want:  "etcd-system/etcd: same manifests; changed: bundle image quay.io/olmops-examples/etcd-operator-bundle@sha256:" + strings.Repeat("2", 64) + ", catalog entry of the bundles on the path",
			title: "etcd 0.9.4: plan refreshed, same manifests (prod-east/etcd-system)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := find(t, tt.res, tt.key)
			if got := p.Summary(); got != tt.want {
				t.Errorf("Summary = %q\nwant      %q", got, tt.want)
			}
			if tt.title == "" {
				return
			}
			pr := &Proposal{Cluster: input(t, fsys, "prod-east", nil).Cluster, Main: p, Plans: []Plan{p}}
			if got := pr.Title(); got != tt.title {
				t.Errorf("Title = %q, want %q", got, tt.title)
			}
		})
	}
}

func TestPlanSummaryHops(t *testing.T) {
	p := Plan{Key: Key{"etcd-system", "etcd"}, State: Upgrade, File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{
		Package: "etcd", From: &v1alpha1.PlanBundle{Version: "0.9.0"}, To: v1alpha1.PlanBundle{Version: "0.9.4"},
		Path: []v1alpha1.PlanHop{{PlanBundle: v1alpha1.PlanBundle{Version: "0.9.2"}}, {PlanBundle: v1alpha1.PlanBundle{Version: "0.9.4"}}},
	}}}
	if got, want := p.Summary(), "etcd-system/etcd: 0.9.0 → 0.9.4 (2 hops)"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
	p.Name, p.File.Spec.Subscription = "etcd-dep", v1alpha1.PlanSubscription{Kind: kindDependency, RequiredBy: []string{"acme-db"}}
	if got, want := p.Summary(), "etcd-system/etcd-dep: etcd 0.9.0 → 0.9.4 (2 hops) (needed by acme-db)"; got != want {
		t.Errorf("Summary = %q, want %q", got, want)
	}
}
