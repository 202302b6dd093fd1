package gitsource_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// TestRepoKeepsPacksOpenUntilClose reads files of a packed repository
// twice: the packfile stays open between reads (go-git's default reopened
// it for every object), Close closes it, and a read after Close opens
// and closes it again.
func TestRepoKeepsPacksOpenUntilClose(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("needs /proc/self/fd")
	}
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"a.yaml": []byte("a\n"), "b/c.yaml": []byte("c\n")}})
	gittest.Git(t, dir, "repack", "-a", "-d", "--quiet")
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	var snap *gitsource.Snapshot
	read := func() {
		t.Helper()
		if data, err := fs.ReadFile(snap.FS(), "b/c.yaml"); err != nil || string(data) != "c\n" {
			t.Fatalf("read b/c.yaml: %q, %v", data, err)
		}
	}
	for range 2 {
		snap = snapshot(t, repo, "main")
		read()
	}
	if n := openPacks(t, dir); n != 1 {
		t.Errorf("%d open packfiles between reads, want 1", n)
	}
	if err := repo.Close(); err != nil {
		t.Fatal(err)
	}
	if n := openPacks(t, dir); n != 0 {
		t.Errorf("%d open packfiles after Close, want 0", n)
	}
	// A cached catalog reads values back through its snapshot after the
	// pass closed the Repo: that still works and keeps nothing open.
	read()
	if n := openPacks(t, dir); n != 0 {
		t.Errorf("%d open packfiles after a read past Close, want 0", n)
	}
}

// openPacks counts this process's descriptors open on .pack files under
// dir.
func openPacks(t *testing.T, dir string) int {
	t.Helper()
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", fd.Name()))
		if err == nil && strings.HasPrefix(target, dir) && strings.HasSuffix(target, ".pack") {
			n++
		}
	}
	return n
}
