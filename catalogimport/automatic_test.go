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

// An import goes to the branch it is given, not the remote's default
// branch: a Planner of branch release, in a repository whose HEAD is main,
// commits and proposes on release and leaves main alone.
func TestRunOnConfiguredBranch(t *testing.T) {
	r := ocitest.NewRegistry(t)
	ref := r.Ref("olmops/operatorhub:latest")
	r.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, withEtcd096(t))))
	images := importer(t)
	srv, url := remoteWithExamples(t)
	bare := srv.RepoDir("desired")
	gittest.Git(t, bare, "branch", "release", "main")
	gittest.Git(t, bare, "update-ref", "refs/heads/main", gittest.Git(t, bare, "commit-tree", "-m", "main moved on", "-p", "main", "main^{tree}")[:40])
	for _, automatic := range []bool{false, true} { // the proposal first: the Automatic import then lands the same change
		t.Run(map[bool]string{true: "Automatic", false: "proposed"}[automatic], func(t *testing.T) {
			main, release := gittest.Git(t, bare, "rev-parse", "main"), strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "release"))
			opts := into(ref, cloneOf(t, url), images)
			opts.Propose = &Propose{Repo: openRepo(t, opts.Dir), Automatic: automatic, Branch: "release"}
			sum, err := Run(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if !sum.Changed || sum.Base != "release" {
				t.Fatalf("changed %v, base %q; want an import on release", sum.Changed, sum.Base)
			}
			if got := gittest.Git(t, bare, "rev-parse", "main"); got != main {
				t.Errorf("main moved from %s to %s", main, got)
			}
			landed := "release^"
			if !automatic {
				landed = "olmops/import/operatorhub^"
			}
			if parent := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", landed)); parent != release {
				t.Errorf("%s = %s, want release's head %s", landed, parent, release)
			}
		})
	}
}
