package gitsource_test

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// Commits made while the index is held go into packs, merged as they pile
// up and into one at the release: git reads every commit, fsck finds the
// repository sound, no loose object is left and the worktree is clean.
func TestHeldCommitsWritePacks(t *testing.T) {
	gittest.RequireGit(t)
	for _, kind := range []string{"bare", "worktree"} {
		t.Run(kind, func(t *testing.T) {
			dir := gittest.Worktree(t, gittest.Change{Files: map[string][]byte{"keep.txt": []byte("keep\n")}, Message: "init"})
			path := dir
			if kind == "bare" {
				path = t.TempDir()
				gittest.Git(t, path, "clone", "--quiet", "--bare", dir, path)
			}
			gittest.Git(t, path, "repack", "-a", "-d", "-q") // one pack before olmops's
			repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: path})
			if err != nil {
				t.Fatal(err)
			}
			parent, err := repo.Resolve(t.Context(), "main")
			if err != nil {
				t.Fatal(err)
			}
			release := repo.HoldIndex()
			// 40 commits: two merges of 16 packs on the way, and shared
			// files that every commit writes again.
			const commits = 40
			for c := range commits {
				files := map[string][]byte{
					fmt.Sprintf("clusters/c%02d/plan.yaml", c):   fmt.Appendf(nil, "cluster: %d\n", c),
					fmt.Sprintf("clusters/c%02d/shared.yaml", c): []byte("shared\n"),
				}
				if c == 20 {
					files["clusters/c03"] = nil // a deletion among them
				}
				parent, err = repo.Commit(t.Context(), gitsource.CommitRequest{Parent: parent, Branch: "main", Files: files, Message: fmt.Sprintf("c%02d", c), Author: author})
				if err != nil {
					t.Fatal(err)
				}
				// While held: olmops and git read the commit just packed,
				// and fsck checks the packs and the indexes olmops wrote.
				if _, err := repo.CommitInfo(t.Context(), parent); err != nil {
					t.Fatalf("commit %d: %v", c, err)
				}
				snap, err := repo.Snapshot(t.Context(), parent)
				if err != nil {
					t.Fatalf("commit %d: %v", c, err)
				}
				if got, err := fs.ReadFile(snap.FS(), fmt.Sprintf("clusters/c%02d/plan.yaml", c)); err != nil || string(got) != fmt.Sprintf("cluster: %d\n", c) {
					t.Fatalf("commit %d: plan.yaml = %q, %v", c, got, err)
				}
				if c == 5 || c == 17 {
					gittest.Git(t, path, "fsck", "--strict", "--no-dangling")
				}
				if got := packCount(t, path); got > 1+2*16 {
					t.Fatalf("after commit %d: %d packs", c, got)
				}
			}
			if err := release(); err != nil {
				t.Fatal(err)
			}
			gittest.Git(t, path, "fsck", "--strict", "--no-dangling")
			if got := packCount(t, path); got != 2 {
				t.Errorf("%d packs after the release, want git's and olmops's", got)
			}
			if st := gittest.Git(t, path, "count-objects", "-v"); !strings.Contains(st, "count: 0\n") {
				t.Errorf("loose objects left:\n%s", st)
			}
			if n := strings.TrimSpace(gittest.Git(t, path, "rev-list", "--count", "main")); n != fmt.Sprint(commits+1) {
				t.Errorf("main has %s commits, want %d", n, commits+1)
			}
			if got := gittest.Git(t, path, "show", "main~10:clusters/c29/plan.yaml"); got != "cluster: 29\n" {
				t.Errorf("c29's plan = %q", got)
			}
			if _, err := gittest.TryGit(path, "cat-file", "-e", "main:clusters/c03"); err == nil {
				t.Error("clusters/c03 still on main")
			}
			if kind == "worktree" {
				if st := gittest.Git(t, path, "status", "--porcelain"); st != "" {
					t.Errorf("git status:\n%s", st)
				}
			}
		})
	}
}

func packCount(t *testing.T, repo string) int {
	t.Helper()
	gitDir := strings.TrimSpace(gittest.Git(t, repo, "rev-parse", "--absolute-git-dir"))
	packs, err := filepath.Glob(filepath.Join(gitDir, "objects", "pack", "pack-*.pack"))
	if err != nil {
		t.Fatal(err)
	}
	return len(packs)
}
