package catalogimport

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

const importBranch = "olmops/import/operatorhub"

// importFleet is the examples on a git server with a fake GitHub in
// front, and an import to propose from fresh clones.
type importFleet struct {
	bare, url string
	gh        *githubtest.Server
	ref       string
	reg       *ocitest.Registry
	images    Images
}

func newImportFleet(t *testing.T) *importFleet {
	t.Helper()
	srv, url := remoteWithExamples(t)
	reg := ocitest.NewRegistry(t)
	f := &importFleet{bare: srv.RepoDir("desired"), url: url, reg: reg, ref: reg.Ref("olmops/operatorhub:latest"), images: importer(t)}
	f.gh = githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "fleet", Token: "t", GitDir: f.bare})
	f.push(t, withEtcd096(t))
	return f
}

func (f *importFleet) push(t *testing.T, edit func(string) string) {
	f.reg.Push(t, f.ref, ocitest.CatalogImage(t, catalogFS(t, edit)))
}

// run proposes the import from a fresh clone, as a CI job would.
func (f *importFleet) run(t *testing.T) *Summary {
	t.Helper()
	opts := into(f.ref, cloneOf(t, f.url), f.images)
	opts.Propose = &Propose{Repo: openRepo(t, opts.Dir), Forge: func(*v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
		return github.New(t.Context(), github.Options{Owner: "acme", Repo: "fleet", Token: "t", BaseURL: f.gh.URL})
	}}
	sum, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

func (f *importFleet) rev(t *testing.T, rev string) string {
	return strings.TrimSpace(gittest.Git(t, f.bare, "rev-parse", rev))
}

// A reviewer's commit on the import's branch is never force-pushed away,
// even when the catalog image changes: the import says so, and the pull
// request gets one comment naming the commit.
func TestRunProposeLeavesForeignBranchAlone(t *testing.T) {
	f := newImportFleet(t)
	if sum := f.run(t); sum.Proposal == nil || sum.Proposal.Number != 1 {
		t.Fatalf("first import: %+v", sum.Proposal)
	}
	gittest.Commit(t, f.bare, importBranch, gittest.Change{Files: map[string][]byte{"catalogs/operatorhub/NOTES.md": []byte("reviewed\n")}, Message: "reviewer: notes"})
	theirs := f.rev(t, importBranch)
	f.push(t, func(s string) string { return withEtcd096(t)(s) + "# rebuilt\n" })
	for range 2 {
		sum := f.run(t)
		if !strings.Contains(sum.Held, "reviewer: notes") {
			t.Errorf("held = %q, want the reviewer's commit named", sum.Held)
		}
		if now := f.rev(t, importBranch); now != theirs {
			t.Fatalf("the reviewer's branch moved from %s to %s", theirs, now)
		}
	}
	pr, _ := f.gh.PR(1)
	if len(pr.Comments) != 1 || !strings.Contains(pr.Comments[0], "reviewer: notes") {
		t.Errorf("comments on #1 = %q, want one naming the reviewer's commit", pr.Comments)
	}
}

// An open import whose content did not change and whose folder did not
// change on the target is not rebased when the target moves; a change to
// its folder on the target rebases it.
func TestRunProposeKeepsUnchangedImport(t *testing.T) {
	f := newImportFleet(t)
	f.run(t)
	before := f.rev(t, importBranch)
	gittest.Commit(t, f.bare, "main", gittest.Change{Files: map[string][]byte{"README.md": []byte("unrelated\n")}, Message: "unrelated"})
	if sum := f.run(t); !sum.Changed || sum.Proposal == nil || sum.Proposal.Number != 1 {
		t.Errorf("kept import: changed %v, proposal %+v", sum.Changed, sum.Proposal)
	}
	if now := f.rev(t, importBranch); now != before {
		t.Errorf("the unchanged import was rebased: %s → %s", before, now)
	}
	gittest.Commit(t, f.bare, "main", gittest.Change{Files: map[string][]byte{"catalogs/operatorhub/README.md": []byte("moved\n")}, Message: "catalog folder edited"})
	f.run(t)
	if parent, main := f.rev(t, importBranch+"^"), f.rev(t, "main"); parent != main {
		t.Errorf("after its folder changed on main, the import is based on %s, want main %s", parent, main)
	}
	if _, dup := f.gh.PR(2); dup {
		t.Error("a second pull request was opened")
	}
}
