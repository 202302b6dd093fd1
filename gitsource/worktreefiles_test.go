package gitsource

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
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

// writeFile's answer is what the index records of the file (size and
// modification time), so it must be what stat says, and the file must
// hold exactly the data, with the permission asked, truncated when it
// was longer.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	for _, c := range []struct {
		name string
		data []byte
		perm os.FileMode
	}{
		{"plan.yaml", []byte("x\n"), 0o644},
		{"run.sh", []byte("#!/bin/sh\n"), 0o755},
		{"big.yaml", big, 0o644},
		{"plan.yaml", []byte("y"), 0o644}, // over a longer file
		{"empty.yaml", nil, 0o644},
	} {
		full := filepath.Join(dir, c.name)
		info, err := writeFile(full, c.data, c.perm)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(full)
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() != st.Size() || !info.ModTime().Equal(st.ModTime()) {
			t.Errorf("%s: writeFile says size %d, %v; stat says %d, %v", c.name, info.Size(), info.ModTime(), st.Size(), st.ModTime())
		}
		if st.Mode().Perm() != c.perm&^umask(t) {
			t.Errorf("%s: mode %v, want %v", c.name, st.Mode().Perm(), c.perm)
		}
		if got, _ := os.ReadFile(full); !bytes.Equal(got, c.data) {
			t.Errorf("%s: %d bytes read back, want %d", c.name, len(got), len(c.data))
		}
	}
	if _, err := writeFile(filepath.Join(dir, "missing", "x.yaml"), nil, 0o644); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("into a missing folder: %v, want not exist", err)
	}
}

// umask is the process's file creation mask, read from a file made now.
func umask(t *testing.T) os.FileMode {
	f := filepath.Join(t.TempDir(), "probe")
	if err := os.WriteFile(f, nil, 0o777); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(f)
	if err != nil {
		t.Fatal(err)
	}
	return 0o777 &^ st.Mode().Perm()
}
