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
	opts := into(ref, path, images)
	opts.Propose = &Propose{Repo: openRepo(t, path)}
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

// remoteWithExamples serves a repository holding the examples on main.
func remoteWithExamples(t *testing.T) (srv *gittest.Server, url string) {
	t.Helper()
	srv = gittest.NewServer(t, gittest.ServerOptions{})
	url = srv.CreateRepo(t, "desired")
	gittest.Commit(t, srv.RepoDir("desired"), "main", gittest.Change{Files: gittest.DirFiles(t, "../examples", ""), Message: "examples"})
	return srv, url
}

// A proposal starts from the remote's branch as fetched now: a clone
// behind its origin (or ahead of it with commits never pushed) does not
// leak into the proposal, and the summary compares with what the remote
// holds.
func TestRunProposeFromRemote(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/operatorhub:latest")
	reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, withEtcd096(t))))
	images := importer(t)
	srv, url := remoteWithExamples(t)
	clone := cloneOf(t, url)
	gittest.Git(t, clone, "commit", "--quiet", "--allow-empty", "-m", "local only, never pushed")

	// Someone else proposed the same import meanwhile, and it was merged.
	if _, err := proposeIn(t, ref, cloneOf(t, url), images); err != nil {
		t.Fatal(err)
	}
	bare := srv.RepoDir("desired")
	gittest.Git(t, bare, "update-ref", "refs/heads/main", "refs/heads/olmops/import/operatorhub")
	remoteHead := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "main"))

	sum, err := proposeIn(t, ref, clone, images)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Changed || len(sum.NewBundles) != 0 || sum.Title() != "catalog operatorhub: no changes" {
		t.Errorf("the remote already holds the import, yet: changed %v, title %q", sum.Changed, sum.Title())
	}

	// A narrower import: the proposal's parent is the remote's head.
	opts := into(ref, clone, images, "etcd")
	opts.Propose = &Propose{Repo: openRepo(t, clone)}
	if sum, err = Run(t.Context(), opts); err != nil {
		t.Fatal(err)
	}
	parent := strings.TrimSpace(gittest.Git(t, bare, "rev-parse", "olmops/import/operatorhub^"))
	if parent != remoteHead {
		t.Errorf("proposal based on %s, want the remote's main %s", parent, remoteHead)
	}
	if len(sum.NewBundles) != 0 || len(sum.RemovedBundles) != 1 {
		t.Errorf("summary %+v, want memcached-operator's bundle removed alone", sum)
	}
}

func cloneOf(t *testing.T, url string) string {
	t.Helper()
	dir := t.TempDir()
	gittest.Git(t, dir, "clone", "--quiet", url, ".")
	return dir
}

func openRepo(t *testing.T, path string) *gitsource.Repo {
	t.Helper()
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	return repo
}
