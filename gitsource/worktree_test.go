package gitsource

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/internal/gittest"
)

// A commit onto the checked-out branch brings the worktree along, and
// refuses to run over someone's uncommitted work at the paths it writes.
func TestCommitUpdatesCheckedOutWorktree(t *testing.T) {
	setup := func(t *testing.T) (string, *Repo) {
		dir := t.TempDir()
		gittest.Git(t, dir, "init", "--quiet", "--initial-branch=main")
		os.MkdirAll(filepath.Join(dir, "plans/a"), 0o755)
		os.WriteFile(filepath.Join(dir, "plans/a/old.yaml"), []byte("old\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("keep\n"), 0o644)
		gittest.Git(t, dir, "add", "--all")
		gittest.Git(t, dir, "commit", "--quiet", "-m", "init")
		r, err := Open(t.Context(), Options{Path: dir})
		if err != nil {
			t.Fatal(err)
		}
		return dir, r
	}
	commit := func(t *testing.T, r *Repo) error {
		head, err := r.Resolve(t.Context(), "main")
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Commit(t.Context(), CommitRequest{Parent: head, Branch: "main", Message: "plan", Author: object.Signature{Name: "t", Email: "t@t"},
			Files: map[string][]byte{"plans/a": nil, "plans/a/new.yaml": []byte("new\n"), "plans/b/x.yaml": []byte("x\n")}})
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
