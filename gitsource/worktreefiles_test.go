package gitsource

import (
	"testing"

	"github.com/go-git/go-billy/v5/memfs"
	"github.com/go-git/go-billy/v5/osfs"
)

// Files go straight to the OS only when the worktree is go-git's own OS
// folder; any other billy filesystem is written through billy.
func TestWorktreeFilesRoot(t *testing.T) {
	dir := t.TempDir()
	if got := newWorktreeFiles(osfs.New(dir)).root; got != dir {
		t.Errorf("osfs root = %q, want %q", got, dir)
	}
	if got := newWorktreeFiles(memfs.New()).root; got != "" {
		t.Errorf("memfs root = %q, want none", got)
	}
	wf := newWorktreeFiles(memfs.New())
	if _, err := wf.write("a/b/c.yaml", []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := wf.write("../escape.yaml", []byte("x\n"), 0o644); err == nil {
		t.Error("a path out of the worktree was written")
	}
	if data, err := readFile(wf.fsys, "a/b/c.yaml"); err != nil || string(data) != "x\n" {
		t.Errorf("read back %q, %v", data, err)
	}
}
