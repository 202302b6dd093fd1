package planner

import (
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/plan"
)

// installPlan is a valid installplan.yaml of package pkg at bundle to.
func installPlan(t *testing.T, pkg, to string) []byte {
	t.Helper()
	p := &v1alpha1.InstallPlan{APIVersion: v1alpha1.GroupVersion, Kind: v1alpha1.InstallPlanKind,
		Metadata: v1alpha1.PlanMeta{Name: pkg, Namespace: "ns"},
		Spec: v1alpha1.InstallPlanSpec{Cluster: "c1", Package: pkg, Approval: v1alpha1.ApprovalAutomatic,
			Subscription: v1alpha1.PlanSubscription{Kind: "Subscription"},
			To:           v1alpha1.PlanBundle{Name: to},
			Path:         []v1alpha1.PlanHop{{PlanBundle: v1alpha1.PlanBundle{Name: to}, Edge: "install", Manifests: "manifests"}}}}
	data, err := p.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// TestReadPlansCache reads a cluster's plans at three commits through one
// cache: a plan folder is served from the cache exactly while its tree is
// unchanged, so a changed manifest or installplan.yaml is read anew and
// never served stale.
func TestReadPlansCache(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	const a, b = "clusters/c1/plans/ns/a/", "clusters/c1/plans/ns/b/"
	commits := []string{
		gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{
			a + "installplan.yaml": installPlan(t, "a", "a.v1"), a + "manifests/csv.yaml": []byte("v1\n"),
			b + "installplan.yaml": installPlan(t, "b", "b.v1"), b + "manifests/csv.yaml": []byte("v1\n"),
		}}),
		// a's manifest alone changes.
		gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{a + "manifests/csv.yaml": []byte("v2\n")}}),
		// b's plan alone changes.
		gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{b + "installplan.yaml": installPlan(t, "b", "b.v2")}}),
	}
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { repo.Close() })
	cluster := v1alpha1.Cluster{Name: "c1", Path: "clusters/c1"}
	cache := NewPlanCache(0)
	read := func(commit string) map[plan.Key]*plan.Committed {
		t.Helper()
		snap, err := repo.Snapshot(t.Context(), plumbing.NewHash(commit))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readPlans(snap, cluster, cache)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	keyA, keyB := plan.Key{Namespace: "ns", Name: "a"}, plan.Key{Namespace: "ns", Name: "b"}
	for i, tc := range []struct {
		commit     int
		hits       int
		csvA, toB  string
		mutateHits bool
	}{
		{commit: 0, hits: 0, csvA: "v1\n", toB: "b.v1"},
		{commit: 0, hits: 2, csvA: "v1\n", toB: "b.v1", mutateHits: true},
		{commit: 0, hits: 2, csvA: "v1\n", toB: "b.v1"}, // the mutation did not reach the cache
		{commit: 1, hits: 1, csvA: "v2\n", toB: "b.v1"},
		{commit: 2, hits: 1, csvA: "v2\n", toB: "b.v2"},
		{commit: 0, hits: 2, csvA: "v1\n", toB: "b.v1"}, // still kept: nothing evicted
	} {
		before := cache.Stats().Hits
		got := read(commits[tc.commit])
		if n := cache.Stats().Hits - before; n != tc.hits {
			t.Errorf("read %d (commit %d): %d hits, want %d", i, tc.commit, n, tc.hits)
		}
		if csv := string(got[keyA].Files["manifests/csv.yaml"]); csv != tc.csvA {
			t.Errorf("read %d (commit %d): a's manifest %q, want %q", i, tc.commit, csv, tc.csvA)
		}
		if to := got[keyB].Plan.Spec.To.Name; to != tc.toB {
			t.Errorf("read %d (commit %d): b's target %s, want %s", i, tc.commit, to, tc.toB)
		}
		if tc.mutateHits {
			for _, c := range got {
				delete(c.Files, "manifests/csv.yaml")
				c.Plan.Spec.To.Name = "changed"
			}
		}
	}
}

// TestPlanCacheBound keeps plans up to the byte size, evicting the least
// recently used, and never keeps one larger than the whole cache.
func TestPlanCacheBound(t *testing.T) {
	committed := func(size int) *plan.Committed {
		return &plan.Committed{Plan: &v1alpha1.InstallPlan{}, Files: map[string][]byte{"f": make([]byte, size-1)}}
	}
	h := func(n byte) plumbing.Hash { return plumbing.Hash{n} }
	c := NewPlanCache(100)
	c.add(h(1), "d", committed(40))
	c.add(h(2), "d", committed(40))
	c.get(h(1), "d") // 1 is now the most recent
	c.add(h(3), "d", committed(40))
	c.add(h(4), "d", committed(101))
	for n, want := range map[byte]bool{1: true, 2: false, 3: true, 4: false} {
		if _, ok := c.get(h(n), "d"); ok != want {
			t.Errorf("plan %d kept: %v, want %v", n, ok, want)
		}
	}
	if _, ok := c.get(h(1), "other"); ok {
		t.Error("a plan of another folder with the same tree was served")
	}
	if got := c.Stats().Evictions; got != 1 {
		t.Errorf("%d evictions, want 1", got)
	}
}
