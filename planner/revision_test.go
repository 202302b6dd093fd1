package planner

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/plan"
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

// withEtcdChain adds etcdoperator.v<version> replacing v<replaces> with no
// skipRange: Classic then steps through every release in between.
func withEtcdChain(t *testing.T, files map[string][]byte, version, replaces string) {
	t.Helper()
	withEtcdBundle(t, files, version, replaces)
	const path = "catalogs/operatorhub/etcd/catalog.yaml"
	files[path] = []byte(strings.Replace(string(files[path]), "    skipRange: '>=0.9.0 <"+version+"'\n", "", 1))
}

// An updated proposal whose path goes through a bundle people rejected
// (closed its proposal) says so in its revision comment, beside the hop
// it gained.
func TestPlanRevisionNamesRejectedBundle(t *testing.T) {
	files := examples(t)
	f := newFleet(t, files)
	f.plan(t)
	f.gh.Merge(t, 1)
	f.plan(t) // PR #2: 0.9.2 → 0.9.4
	f.gh.ClosePR(t, 2)
	const cat = "catalogs/operatorhub/etcd/catalog.yaml"
	withEtcdChain(t, files, "0.9.6", "0.9.4")
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{cat: files[cat]}, Message: "catalog: etcd 0.9.6"})
	f.plan(t) // PR #3: 0.9.2 → 0.9.4 → 0.9.6
	withEtcdChain(t, files, "0.9.8", "0.9.6")
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{cat: files[cat]}, Message: "catalog: etcd 0.9.8"})
	f.plan(t)
	pr, ok := f.gh.PR(3)
	if !ok || !strings.Contains(pr.Title, "0.9.8") {
		t.Fatalf("PR #3 = %+v", pr)
	}
	if len(pr.Comments) != 1 {
		t.Fatalf("comments on PR #3 = %q, want one", pr.Comments)
	}
	for _, s := range []string{
		"target: `etcdoperator.v0.9.8` (was `etcdoperator.v0.9.6`)",
		"new hop `etcdoperator.v0.9.8` of `etcd` (replaces)",
		"the path goes through `etcdoperator.v0.9.4`, which was rejected earlier: proposal #2 was closed without merging",
	} {
		if !strings.Contains(pr.Comments[0], s) {
			t.Errorf("the comment lacks %q:\n%s", s, pr.Comments[0])
		}
	}
	if strings.Contains(pr.Comments[0], "new hop `etcdoperator.v0.9.4`") {
		t.Errorf("a hop of the previous revision is called new:\n%s", pr.Comments[0])
	}
}

// The revision comment names the RBAC rules and CRD versions a revision
// changes, not just the files.
func TestManifestNotes(t *testing.T) {
	role := func(verbs string) []byte {
		return []byte("apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: etcd}\nrules:\n- {apiGroups: [\"\"], resources: [secrets], verbs: [" + verbs + "]}\n")
	}
	crd := func(versions string) []byte {
		return []byte("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata: {name: etcdclusters.etcd.database.coreos.com}\nspec:\n  group: etcd.database.coreos.com\n  versions: [" + versions + "]\n")
	}
	prev := map[string][]byte{"manifests/clusterrole-etcd.yaml": role("get"), "manifests/crd.yaml": crd("{name: v1beta2, served: true, storage: true}")}
	pl := plan.Plan{Files: map[string][]byte{"manifests/clusterrole-etcd.yaml": role("get, delete"), "manifests/crd.yaml": crd("{name: v1beta2, served: true, storage: false}, {name: v1, served: true, storage: true}")}}
	got := strings.Join(manifestNotes(pl, prev), "\n")
	for _, s := range []string{"RBAC: ClusterRole `etcd` gains `core: secrets [delete]`", "CRD `etcdclusters.etcd.database.coreos.com`: +v1, storage v1beta2 → v1"} {
		if !strings.Contains(got, s) {
			t.Errorf("notes lack %q:\n%s", s, got)
		}
	}
}
