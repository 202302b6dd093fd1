package gitsource

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/internal/gittest"
)

// A commit onto the checked-out branch brings the worktree along, and
// refuses to run over someone's uncommitted work at the paths it writes.
func TestCommitUpdatesCheckedOutWorktree(t *testing.T) {
	setup := func(t *testing.T) (string, *Repo) {
		dir, r, _ := openWorktree(t, gittest.Change{Files: map[string][]byte{"plans/a/old.yaml": []byte("old\n"), "keep.txt": []byte("keep\n")}})
		return dir, r
	}
	commit := func(t *testing.T, r *Repo) error {
		head, err := r.Resolve(t.Context(), "main")
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Commit(t.Context(), CommitRequest{Parent: head, Branch: "main", Message: "plan", Author: object.Signature{Name: "t", Email: "t@t"},
			Files: map[string][]byte{"plans/a": nil, "plans/a/new.yaml": []byte("new\n"), "plans/b/x.yaml": []byte("x\n"),
				"plans/c/d/z.yaml": []byte("z\n"), "plans/c/e/w.yaml": []byte("w\n")}})
		return err
	}
	t.Run("clean", func(t *testing.T) {
		dir, r := setup(t)
		os.WriteFile(filepath.Join(dir, "untracked.txt"), []byte("mine\n"), 0o644)
		if err := commit(t, r); err != nil {
			t.Fatal(err)
		}
		if st := gittest.Git(t, dir, "status", "--porcelain"); strings.TrimSpace(st) != "?? untracked.txt" {
			t.Fatalf("git status after the commit:\n%s", st)
		}
		if data, _ := os.ReadFile(filepath.Join(dir, "plans/b/x.yaml")); string(data) != "x\n" {
			t.Errorf("new file = %q", data)
		}
		if _, err := os.Stat(filepath.Join(dir, "plans/a/old.yaml")); !os.IsNotExist(err) {
			t.Errorf("deleted file still there: %v", err)
		}
	})
	dirty := map[string]func(dir string){
		"modified file": func(dir string) { os.WriteFile(filepath.Join(dir, "plans/a/old.yaml"), []byte("mine\n"), 0o644) },
		"untracked in the way": func(dir string) {
			os.MkdirAll(filepath.Join(dir, "plans/b"), 0o755)
			os.WriteFile(filepath.Join(dir, "plans/b/x.yaml"), []byte("mine\n"), 0o644)
		},
		// plans/c/d is missing, which must not vouch for plans/c/e.
		"untracked beside a missing folder": func(dir string) {
			os.MkdirAll(filepath.Join(dir, "plans/c/e"), 0o755)
			os.WriteFile(filepath.Join(dir, "plans/c/e/w.yaml"), []byte("mine\n"), 0o644)
		},
		"untracked file where a folder goes": func(dir string) {
			os.WriteFile(filepath.Join(dir, "plans/c"), []byte("mine\n"), 0o644)
		},
		"staged change": func(dir string) {
			os.WriteFile(filepath.Join(dir, "plans/a/old.yaml"), []byte("staged\n"), 0o644)
		},
	}
	for name, spoil := range dirty {
		t.Run(name, func(t *testing.T) {
			dir, r := setup(t)
			before := gittest.Git(t, dir, "rev-parse", "main")
			spoil(dir)
			if name == "staged change" {
				gittest.Git(t, dir, "add", "plans/a/old.yaml")
			}
			if err := commit(t, r); !errors.Is(err, ErrDirtyWorktree) {
				t.Fatalf("err = %v, want ErrDirtyWorktree", err)
			}
			if after := gittest.Git(t, dir, "rev-parse", "main"); after != before {
				t.Error("the branch moved although the commit was refused")
			}
		})
	}
}

// The index is kept in memory between commits but never over someone
// else's: a `git add` between two commits survives the second, and under
// HoldIndex the index is written once, at the release.
func TestCommitIndexInMemory(t *testing.T) {
	setup := func(t *testing.T) (string, *Repo) {
		dir, r, _ := openWorktree(t, gittest.Change{Files: map[string][]byte{"keep.txt": []byte("keep\n")}})
		return dir, r
	}
	commit := func(t *testing.T, r *Repo, name string) error {
		head, err := r.Resolve(t.Context(), "main")
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Commit(t.Context(), CommitRequest{Parent: head, Branch: "main", Message: "plan", Author: object.Signature{Name: "t", Email: "t@t"},
			Files: map[string][]byte{"plans/" + name + ".yaml": []byte(name + "\n")}})
		return err
	}
	status := func(t *testing.T, dir string) string {
		return strings.TrimSpace(gittest.Git(t, dir, "status", "--porcelain"))
	}
	t.Run("someone's git add between commits", func(t *testing.T) {
		dir, r := setup(t)
		if err := commit(t, r, "a"); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("mine\n"), 0o644)
		gittest.Git(t, dir, "add", "mine.txt")
		if err := commit(t, r, "b"); err != nil {
			t.Fatal(err)
		}
		if st := status(t, dir); st != "A  mine.txt" {
			t.Fatalf("git status:\n%s\nwant only the staged mine.txt", st)
		}
	})
	t.Run("held", func(t *testing.T) {
		dir, r := setup(t)
		release := r.HoldIndex()
		for _, n := range []string{"a", "b", "c"} {
			if err := commit(t, r, n); err != nil {
				t.Fatal(err)
			}
		}
		if st := status(t, dir); st == "" {
			t.Fatal("git status clean before the release: the index was written per commit")
		}
		if err := release(); err != nil {
			t.Fatal(err)
		}
		if st := status(t, dir); st != "" {
			t.Fatalf("git status after the release:\n%s", st)
		}
		if err := release(); err != nil {
			t.Fatalf("second release: %v", err)
		}
	})
	t.Run("held, someone's git status and git add beside", func(t *testing.T) {
		dir, r := setup(t)
		release := r.HoldIndex()
		if err := commit(t, r, "a"); err != nil {
			t.Fatal(err)
		}
		head, _ := r.Resolve(t.Context(), "main")
		if _, err := r.Commit(t.Context(), CommitRequest{Parent: head, Branch: "main", Message: "drop", Author: object.Signature{Name: "t", Email: "t@t"},
			Files: map[string][]byte{"keep.txt": nil}}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "mine.txt"), []byte("mine\n"), 0o644)
		gittest.Git(t, dir, "add", "mine.txt")
		if err := commit(t, r, "b"); err != nil {
			t.Fatal(err)
		}
		if err := release(); err != nil {
			t.Fatal(err)
		}
		if st := status(t, dir); st != "A  mine.txt" {
			t.Fatalf("git status:\n%s\nwant only the staged mine.txt", st)
		}
	})
	t.Run("held, someone's git add where olmops wrote", func(t *testing.T) {
		dir, r := setup(t)
		release := r.HoldIndex()
		if err := commit(t, r, "a"); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "plans/a.yaml"), []byte("mine\n"), 0o644)
		gittest.Git(t, dir, "add", "plans/a.yaml")
		before := gittest.Git(t, dir, "rev-parse", "main")
		if err := commit(t, r, "b"); !errors.Is(err, errIndexChanged) {
			t.Fatalf("err = %v, want errIndexChanged", err)
		}
		if after := gittest.Git(t, dir, "rev-parse", "main"); after != before {
			t.Error("the branch moved although the commit was refused")
		}
		if err := release(); !errors.Is(err, errIndexChanged) {
			t.Fatalf("release: %v, want errIndexChanged: the index olmops owes cannot be written", err)
		}
		if !strings.Contains(status(t, dir), "M  plans/a.yaml") && !strings.Contains(status(t, dir), "A  plans/a.yaml") {
			t.Errorf("someone's staged file lost:\n%s", status(t, dir))
		}
	})
}

// Reads of a snapshot go on while commits write the worktree (the
// planner reads its next clusters meanwhile): every read sees its
// commit's content, and the worktree ends clean.
func TestSnapshotReadsDuringWorktreeCommits(t *testing.T) {
	dir, r, head := openWorktree(t, gittest.Change{Files: map[string][]byte{"desired.yaml": []byte("desired\n")}})
	snap, err := r.Snapshot(t.Context(), head)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	readErr := make(chan error, 1)
	go func() {
		defer close(readErr)
		for {
			select {
			case <-done:
				return
			default:
			}
			if data, err := fs.ReadFile(snap.FS(), "desired.yaml"); err != nil || string(data) != "desired\n" {
				readErr <- fmt.Errorf("read %q, %v", data, err)
				return
			}
		}
	}()
	release := r.HoldIndex()
	parent := head
	for c := range 20 {
		files := map[string][]byte{}
		for f := range 8 {
			files[fmt.Sprintf("clusters/c%02d/plans/p%d/installplan.yaml", c, f)] = fmt.Appendf(nil, "cluster: %d\nplan: %d\n", c, f)
		}
		if parent, err = r.Commit(t.Context(), CommitRequest{Parent: parent, Branch: "main", Message: "plan", Author: object.Signature{Name: "t", Email: "t@t"}, Files: files}); err != nil {
			t.Fatal(err)
		}
	}
	if err := release(); err != nil {
		t.Fatal(err)
	}
	close(done)
	if err := <-readErr; err != nil {
		t.Fatal(err)
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("git status after the commits:\n%s", st)
	}
	if got := gittest.Git(t, dir, "show", "main:clusters/c19/plans/p7/installplan.yaml"); got != "cluster: 19\nplan: 7\n" {
		t.Errorf("last plan = %q", got)
	}
}

// openWorktree makes a repository with a worktree holding c, main
// checked out, and opens it; head is main's commit.
func openWorktree(t *testing.T, c gittest.Change) (string, *Repo, plumbing.Hash) {
	t.Helper()
	dir := gittest.Worktree(t, c)
	r, err := Open(t.Context(), Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	head, err := r.Resolve(t.Context(), "main")
	if err != nil {
		t.Fatal(err)
	}
	return dir, r, head
}
