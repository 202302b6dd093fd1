package githubtest

import (
	"errors"
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

// TestBranchCommit reads branches from the repository's files the way git
// resolves them: a loose ref before packed-refs, symbolic refs and odd
// names through git, and no branch as errNoRef, without a git process for
// the plain ones.
func TestBranchCommit(t *testing.T) {
	gittest.RequireGit(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	first := gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"a": []byte("1")}})
	gittest.Git(t, dir, "branch", "olmops/c1/ns/packed", "main")
	gittest.Git(t, dir, "branch", "moved", "main")
	gittest.Git(t, dir, "pack-refs", "--all")
	second := gittest.Commit(t, dir, "moved", gittest.Change{Files: map[string][]byte{"a": []byte("2")}})
	gittest.Git(t, dir, "symbolic-ref", "refs/heads/alias", "refs/heads/moved")
	s := &Server{opts: Options{GitDir: dir}}

	for _, tc := range []struct {
		branch string
		want   string // "" for errNoRef
		git    bool   // git answers, not the files
	}{
		{branch: "main", want: first},                // packed only
		{branch: "olmops/c1/ns/packed", want: first}, // packed, nested
		{branch: "moved", want: second},              // loose, newer than packed
		{branch: "alias", want: second, git: true},   // symbolic
		{branch: "missing"},
		{branch: "olmops"},  // a folder of branches
		{branch: "main/x"},  // below a packed branch
		{branch: "moved/x"}, // below a loose branch
		{branch: "../config", git: true},
		{branch: "olmops/../moved", want: "", git: true},
	} {
		t.Run(tc.branch, func(t *testing.T) {
			before := s.GitRuns()["rev-parse"].Runs
			got, err := s.branchCommit(t.Context(), tc.branch)
			switch {
			case tc.want == "" && !errors.Is(err, errNoRef):
				t.Errorf("branchCommit(%q) = %q, %v; want errNoRef", tc.branch, got, err)
			case tc.want != "" && (err != nil || got != tc.want):
				t.Errorf("branchCommit(%q) = %q, %v; want %s", tc.branch, got, err, tc.want)
			}
			if ran := s.GitRuns()["rev-parse"].Runs > before; ran != tc.git {
				t.Errorf("git ran: %v, want %v", ran, tc.git)
			}
		})
	}
}

// TestCatFile resolves revisions through the long-running cat-file as
// rev-parse --verify rev^{commit} would, including commits written after
// it started.
func TestCatFile(t *testing.T) {
	gittest.RequireGit(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	first := gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"a": []byte("1")}})
	gittest.Git(t, dir, "tag", "-a", "-m", "v1", "v1", first)
	tree := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main^{tree}"))
	c := &catFile{dir: dir}
	t.Cleanup(c.stop)
	check := func(rev, want string) {
		t.Helper()
		sha, ok, err := c.resolve(rev)
		if err != nil || ok != (want != "") || sha != want {
			t.Errorf("resolve(%q) = %q, %v, %v; want %q", rev, sha, ok, err, want)
		}
	}
	check(first, first)
	check("refs/heads/main", first)
	check("refs/tags/v1", first) // an annotated tag, peeled
	check(tree, "")              // not a commit
	check(strings.Repeat("a", 40), "")
	check("refs/heads/missing", "")
	second := gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"a": []byte("2")}})
	gittest.Git(t, dir, "repack", "-a", "-d", "--quiet")
	check(second, second)
	check("refs/heads/main", second)
	if _, _, err := c.resolve("main two"); err == nil {
		t.Error("a revision with a space went into the batch")
	}
	if got := c.cost().Runs; got != 8 {
		t.Errorf("%d objects asked, want 8", got)
	}
}

// TestCatFileIsAncestor answers every pair of a history with a merge as
// git merge-base --is-ancestor does, including commits made after the
// batch started.
func TestCatFileIsAncestor(t *testing.T) {
	gittest.RequireGit(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	c1 := gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"a": []byte("1")}})
	gittest.Git(t, dir, "branch", "side", "main")
	c2 := gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"a": []byte("2")}})
	s1 := gittest.Commit(t, dir, "side", gittest.Change{Files: map[string][]byte{"b": []byte("1")}})
	c := &catFile{dir: dir}
	t.Cleanup(c.stop)
	if ok, err := c.isAncestor(c1, c2); err != nil || !ok {
		t.Fatalf("isAncestor(c1, c2) = %v, %v", ok, err)
	}
	tree := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main^{tree}"))
	m := strings.TrimSpace(gittest.Git(t, dir, "commit-tree", tree, "-p", c2, "-p", s1, "-m", "merge"))
	commits := map[string]string{"c1": c1, "c2": c2, "s1": s1, "m": m}
	for an, a := range commits {
		for bn, b := range commits {
			_, err := gittest.TryGit(dir, "merge-base", "--is-ancestor", a, b)
			got, cerr := c.isAncestor(a, b)
			if cerr != nil || got != (err == nil) {
				t.Errorf("isAncestor(%s, %s) = %v, %v; git says %v", an, bn, got, cerr, err == nil)
			}
		}
	}
	if _, err := c.isAncestor(c1, strings.Repeat("a", 40)); err == nil {
		t.Error("an unknown commit gave an answer, not an error")
	}
}
