package catalogimport

import (
	"os"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// exampleRepo is a git repository holding the examples, on main.
func exampleRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS("../examples")); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "init", "--quiet", "--initial-branch=main")
	gittest.Git(t, dir, "add", "--all")
	gittest.Git(t, dir, "commit", "--quiet", "-m", "examples")
	return dir
}

// proposeIn imports ref as a proposal in the repository at path.
func proposeIn(t *testing.T, ref, path string, images Images) (*Summary, error) {
	t.Helper()
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	opts := into(ref, path, images)
	opts.Propose = &Propose{Repo: repo}
	return Run(t.Context(), opts)
}

// A proposed import is one commit on olmops/import/<catalog>, and the
// worktree is left alone.
func TestRunPropose(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/operatorhub:latest")
	reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, withEtcd096(t))))
	repo := exampleRepo(t)
	sum, err := proposeIn(t, ref, repo, importer(t))
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Changed || sum.Proposal == nil || sum.Proposal.Head != "olmops/import/operatorhub" {
		t.Errorf("summary: changed %v, proposal %+v", sum.Changed, sum.Proposal)
	}
	if st := gittest.Git(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("proposing wrote into the worktree:\n%s", st)
	}
	subject := gittest.Git(t, repo, "log", "-1", "--format=%s", "olmops/import/operatorhub")
	if strings.TrimSpace(subject) != "catalog operatorhub: etcd 0.9.6 available" {
		t.Errorf("commit subject %q", subject)
	}
	diff := gittest.Git(t, repo, "diff", "--stat", "main", "olmops/import/operatorhub")
	if !strings.Contains(diff, "catalogs/operatorhub/etcd/catalog.yaml") {
		t.Errorf("the import commit does not change the etcd catalog:\n%s", diff)
	}
	// The git-only forge recorded the proposal.
	if rec := gittest.Git(t, repo, "for-each-ref", "refs/olmops/proposals/"); !strings.Contains(rec, "olmops/import/operatorhub") {
		t.Errorf("no proposal record:\n%s", rec)
	}
}
