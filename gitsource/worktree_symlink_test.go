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

// A commit onto a checked-out branch never writes through a symbolic
// link: a committed (or untracked) link where the commit puts a folder
// would otherwise send plan files anywhere the link points, outside the
// worktree. git's checkout refuses the same ("beyond a symbolic link").
func TestCommitRefusesSymlinkedFolders(t *testing.T) {
	tests := []struct {
		name string
		// link is the worktree path made a symbolic link to outside.
		link    string
		tracked bool
	}{
		{"tracked link on the path", "plans/b", true},
		{"tracked link higher up", "plans", true},
		{"untracked link on the path", "plans/b", false},
		{"untracked link higher up", "plans", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outside := t.TempDir()
			init := gittest.Change{Files: map[string][]byte{"keep.txt": []byte("keep\n")}}
			if tt.tracked {
				init.Symlinks = map[string]string{tt.link: outside}
			}
			dir, r, head := openWorktree(t, init)
			if !tt.tracked {
				os.MkdirAll(filepath.Dir(filepath.Join(dir, tt.link)), 0o755)
				if err := os.Symlink(outside, filepath.Join(dir, tt.link)); err != nil {
					t.Fatal(err)
				}
			}
			_, err := r.Commit(t.Context(), CommitRequest{Parent: head, Branch: "main", Message: "plan", Author: object.Signature{Name: "t", Email: "t@t"},
				Files: map[string][]byte{"plans/b/x.yaml": []byte("x\n")}})
			if err == nil {
				t.Fatal("commit through a symbolic link succeeded")
			}
			// A link the branch holds is refused from the tree ("cannot
			// write below plans: it is a file"), one beside it from the disk.
			if !strings.Contains(err.Error(), "cannot write below") && !(errors.Is(err, ErrDirtyWorktree) && strings.Contains(err.Error(), "symbolic link")) {
				t.Errorf("error %v names neither the link nor the path below it", err)
			}
			if entries, _ := os.ReadDir(outside); len(entries) > 0 {
				t.Errorf("the commit wrote outside the worktree: %v", entries)
			}
			if got, _ := r.Resolve(t.Context(), "main"); got != head {
				t.Errorf("main moved to %s although the worktree could not be written", got)
			}
		})
	}
}

// A tracked file replaced on disk by a link to a file of the same content
// looks clean by content: the commit must still not truncate the target.
func TestCommitRefusesSymlinkedFile(t *testing.T) {
	outside := t.TempDir()
	dir, r, head := openWorktree(t, gittest.Change{Files: map[string][]byte{"plans/x.yaml": []byte("old\n")}})
	target := filepath.Join(outside, "precious")
	os.WriteFile(target, []byte("old\n"), 0o644)
	os.Remove(filepath.Join(dir, "plans/x.yaml"))
	if err := os.Symlink(target, filepath.Join(dir, "plans/x.yaml")); err != nil {
		t.Fatal(err)
	}
	_, err := r.Commit(t.Context(), CommitRequest{Parent: head, Branch: "main", Message: "plan", Author: object.Signature{Name: "t", Email: "t@t"},
		Files: map[string][]byte{"plans/x.yaml": []byte("new\n")}})
	if !errors.Is(err, ErrDirtyWorktree) {
		t.Errorf("commit over a linked file: %v, want ErrDirtyWorktree", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "old\n" {
		t.Errorf("the link's target outside the worktree now holds %q", data)
	}
}
