package planner

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

const etcdBranch = "olmops/prod-east/etcd-system/etcd"

// A reviewer's commit on a proposal branch is never force-pushed away:
// the proposal is held, said once on the pull request, and left alone
// even when its plan changes.
func TestPlanLeavesForeignProposalBranchAlone(t *testing.T) {
	files := examples(t)
	f := newFleet(t, files)
	f.plan(t)
	gittest.Commit(t, f.dir, etcdBranch, gittest.Change{Files: map[string][]byte{"clusters/prod-east/overlays/etcd/kustomization.yaml": []byte("resources: []\n")}, Message: "reviewer: an overlay"})
	theirs := gittest.Git(t, f.dir, "rev-parse", etcdBranch)

	withEtcdBundle(t, files, "0.9.6", "0.9.4") // the plan changes too
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"catalogs/operatorhub/etcd/catalog.yaml": files["catalogs/operatorhub/etcd/catalog.yaml"]}, Message: "catalog: etcd 0.9.6"})
	for range 2 {
		r := f.plan(t)
		assertActions(t, r, map[string]Action{"prod-east/etcd-system/etcd": ActionHeld})
		if now := gittest.Git(t, f.dir, "rev-parse", etcdBranch); now != theirs {
			t.Fatalf("the reviewer's branch was moved from %s to %s", theirs, now)
		}
	}
	pr, _ := f.gh.PR(1)
	if len(pr.Comments) != 1 || !strings.Contains(pr.Comments[0], "reviewer: an overlay") {
		t.Errorf("comments on #1 = %q, want one naming the reviewer's commit", pr.Comments)
	}
	if _, dup := f.gh.PR(2); dup {
		t.Error("a second pull request was opened beside the held one")
	}
}

// An open proposal whose plan did not change, and that still merges
// cleanly, is not rebased when its target branch moves.
func TestPlanKeepsUnchangedProposal(t *testing.T) {
	f := newFleet(t, examples(t))
	f.plan(t)
	before := gittest.Git(t, f.dir, "rev-parse", etcdBranch)
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"README.md": []byte("unrelated\n")}, Message: "unrelated"})
	r := f.plan(t)
	assertActions(t, r, map[string]Action{"prod-east/etcd-system/etcd": ActionProposed})
	if now := gittest.Git(t, f.dir, "rev-parse", etcdBranch); now != before {
		t.Errorf("the unchanged proposal was rebased: %s → %s", before, now)
	}
}
