package gitsource

import (
	"testing"

	"github.com/go-git/go-billy/v5"
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
	for _, fsys := range []billy.Filesystem{memfs.New(), osfs.New(t.TempDir())} {
		wf := newWorktreeFiles(fsys)
		ws := []fileWrite{
			{name: "a/b/c.yaml", data: []byte("x\n"), perm: 0o644},
			{name: "../escape.yaml", data: []byte("x\n"), perm: 0o644},
			{name: "a/d.yaml", data: []byte("y\n"), perm: 0o644},
		}
		wf.writeAll(ws)
		if ws[0].err != nil || ws[2].err != nil {
			t.Fatal(ws[0].err, ws[2].err)
		}
		if ws[1].err == nil {
			t.Error("a path out of the worktree was written")
		}
		if ws[0].info.Size() != 2 {
			t.Errorf("info of the written file: size %d, want 2", ws[0].info.Size())
		}
		if data, err := readFile(wf.fsys, "a/b/c.yaml"); err != nil || string(data) != "x\n" {
			t.Errorf("read back %q, %v", data, err)
		}
	}
}
