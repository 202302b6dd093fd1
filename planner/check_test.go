package planner

import (
	"testing"
	"time"

	"github.com/olmops/olmops/gitsource"
)

// --check as a CI gate on the target branch: a Manual plan waiting in its
// proposal, or rejected by closing it, is not a finding; a plan no
// proposal carries is.
func TestPlanCheckProposals(t *testing.T) {
	f := newFleet(t, examples(t))
	check := func() *Report {
		t.Helper()
		repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: f.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(Options{Repo: repo, Check: true, Version: "v0.0.0-test", Backoff: time.Millisecond, Forge: f.forge(t)}).Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	const etcd = "prod-east/etcd-system/etcd"
	if r := check(); actions(r)[etcd] != ActionStale || r.Stale() == 0 {
		t.Fatalf("no proposal yet: %s is %q, %d stale", etcd, actions(r)[etcd], r.Stale())
	}
	f.plan(t)
	for _, tc := range []struct {
		name  string
		setup func()
		want  Action
		stale int
	}{
		{"awaiting approval", func() {}, ActionAwaiting, 0},
		{"rejected", func() { f.gh.ClosePR(t, 1) }, ActionRejected, 0},
	} {
		tc.setup()
		r := check()
		if got := actions(r)[etcd]; got != tc.want {
			t.Errorf("%s: %s is %q, want %q", tc.name, etcd, got, tc.want)
		}
		if r.Stale() != tc.stale {
			t.Errorf("%s: %d stale, want %d: %+v", tc.name, r.Stale(), tc.stale, r)
		}
	}
}
