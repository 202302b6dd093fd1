package planner

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

// olmops/upgradeable says yes only once the cluster has: pending while
// the installed operator has not reported, success after, and it links to
// the proposal.
func TestPlanUpgradeablePendingUntilReported(t *testing.T) {
	f := newFleet(t, examples(t))
	latest := func(sha string) githubtest.Status {
		var got githubtest.Status
		for _, s := range f.gh.StatusesFor(sha) {
			if s.Context == commitstatus.UpgradeableContext && s.ID > got.ID { // ids grow
				got = s
			}
		}
		return got
	}
	f.plan(t)
	pr1, _ := f.gh.PR(1)
	if s := latest(pr1.HeadSHA); s.State != "success" || !strings.HasSuffix(s.TargetURL, "/pull/1") {
		t.Errorf("install proposal: olmops/upgradeable = %+v, want success linking to the pull request", s)
	}
	f.gh.Merge(t, 1)
	f.plan(t)
	pr2, _ := f.gh.PR(2)
	if s := latest(pr2.HeadSHA); s.State != "pending" || !strings.HasSuffix(s.TargetURL, "/pull/2") {
		t.Fatalf("before the cluster reported: olmops/upgradeable = %+v, want pending linking to the pull request", s)
	}
	carrier := strings.TrimSpace(gittest.Git(t, f.dir, "log", "-1", "--format=%H", "main", "--", "clusters/prod-east/plans/etcd-system/etcd"))
	gh, err := github.New(t.Context(), github.Options{Owner: "acme", Repo: "fleet", Token: ghToken, BaseURL: f.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	rep := commitstatus.Report{Phase: commitstatus.Installed, Bundle: "etcdoperator.v0.9.2", Healthy: true}
	if err := gh.SetStatus(t.Context(), carrier, gitsource.Status{Context: commitstatus.Context("prod-east", "etcd-system", "etcd"), State: rep.State(), Description: rep.Description()}); err != nil {
		t.Fatal(err)
	}
	f.plan(t)
	pr2, _ = f.gh.PR(2)
	if s := latest(pr2.HeadSHA); s.State != "success" {
		t.Errorf("after the cluster reported: olmops/upgradeable = %+v, want success", s)
	}
}
