package catalogimport

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/internal/gittest"
)

// An Automatic import is one commit on the remote's main, pushed without
// force, and no proposal branch; importing it again changes nothing.
func TestRunAutomatic(t *testing.T) {
	r := ocitest.NewRegistry(t)
	ref := r.Ref("olmops/operatorhub:latest")
	r.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, withEtcd096(t))))
	images := importer(t)
	srv, url := remoteWithExamples(t)
	bare := srv.RepoDir("desired")
	before := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "main"))

	for i, wantChanged := range []bool{true, false} {
		opts := into(ref, cloneOf(t, url), images)
		opts.Propose = &Propose{Repo: openRepo(t, opts.Dir), Automatic: true}
		sum, err := Run(t.Context(), opts)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Changed != wantChanged || sum.Proposal != nil {
			t.Errorf("import %d: changed %v, proposal %+v; want changed %v and no proposal", i, sum.Changed, sum.Proposal, wantChanged)
		}
	}
	if parent := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "main^")); parent != before {
		t.Errorf("main^ = %s, want the previous head %s: one import commit on top", parent, before)
	}
	if subject := gittest.Git(t, bare, "log", "-1", "--format=%s", "main"); strings.TrimSpace(subject) != "catalog operatorhub: etcd 0.9.6 available" {
		t.Errorf("main's commit %q", subject)
	}
	if refs := gittest.Git(t, bare, "for-each-ref", "refs/heads/olmops/"); refs != "" {
		t.Errorf("an Automatic import pushed proposal branches:\n%s", refs)
	}
}
