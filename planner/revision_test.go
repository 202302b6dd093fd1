package planner

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

// A newer bundle updates the open upgrade proposal: its reviewers get one
// comment saying what changed since the revision they saw.
func TestPlanCommentsOnRevision(t *testing.T) {
	files := examples(t)
	f := newFleet(t, files)
	f.plan(t)
	f.gh.Merge(t, 1)
	f.plan(t) // PR #2: 0.9.2 → 0.9.4
	if pr, _ := f.gh.PR(2); len(pr.Comments) != 0 {
		t.Fatalf("a first revision got comments %q", pr.Comments)
	}
	withEtcdBundle(t, files, "0.9.6", "0.9.4")
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"catalogs/operatorhub/etcd/catalog.yaml": files["catalogs/operatorhub/etcd/catalog.yaml"]}, Message: "catalog: etcd 0.9.6"})
	f.plan(t)
	f.plan(t) // nothing new: nothing said
	pr, _ := f.gh.PR(2)
	if !strings.Contains(pr.Title, "0.9.6") {
		t.Fatalf("PR #2 was not updated: %q", pr.Title)
	}
	if len(pr.Comments) != 1 {
		t.Fatalf("comments on PR #2 = %q, want one", pr.Comments)
	}
	for _, s := range []string{"target: `etcdoperator.v0.9.6` (was `etcdoperator.v0.9.4`)", "changed `clusters/prod-east/plans/etcd-system/etcd/installplan.yaml`"} {
		if !strings.Contains(pr.Comments[0], s) {
			t.Errorf("the comment lacks %q:\n%s", s, pr.Comments[0])
		}
	}
}
