package gitsource_test

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// mergeOnServer merges branch into main of rm with the git CLI, as a person
// merging a proposal does; args choose the kind of merge.
func mergeOnServer(t *testing.T, rm remote, branch string, args ...string) {
	t.Helper()
	work := t.TempDir()
	gittest.Git(t, work, "clone", "--quiet", rm.dir, ".")
	gittest.Git(t, work, append(append([]string{"merge", "--quiet"}, args...), "origin/"+branch)...)
	if len(args) > 0 && args[0] == "--squash" {
		gittest.Git(t, work, "commit", "--quiet", "-m", "squash "+branch)
	}
	gittest.Git(t, work, "push", "--quiet", "origin", "HEAD:main")
}

func TestLastChanged(t *testing.T) {
	rm := newRemote(t, map[string][]byte{
		"a/x": []byte("1"), "b/y": []byte("1"), "c/z": []byte("1"), "keep/k": []byte("1"), "e/q": []byte("1"),
		"deep/1/2/3/f": []byte("1"),
	})
	c1 := rm.head(t, "main")
	change := func(branch string, files map[string][]byte) plumbing.Hash {
		return rm.commit(t, branch, gittest.Change{Files: files})
	}
	c2 := change("main", map[string][]byte{"a/x": []byte("2")})
	c3 := change("main", map[string][]byte{"e/q": nil, "root.txt": []byte("1")}) // e deleted
	c4 := change("main", map[string][]byte{"c/z": nil, "deep/1/2/3/f": []byte("2")})
	gittest.Git(t, rm.dir, "branch", "feature", c4.String())
	f1 := change("feature", map[string][]byte{"b/y": []byte("2")})
	f2 := change("feature", map[string][]byte{"b/n": []byte("1")})
	c5 := change("main", map[string][]byte{"d/w": []byte("1"), "e/q": []byte("1")}) // e back as at c1
	mergeOnServer(t, rm, "feature", "--no-ff", "-m", "merge feature")
	merge := rm.head(t, "main")
	c6 := change("main", map[string][]byte{"root.txt": []byte("2")})
	repo := rm.open(t)

	dirs := []string{"a", "b", "c", "d", "e", "keep", ".", "deep/1", "deep/1/2/3", "a/missing", "root.txt", "b/y", "nowhere/at/all"}
	tests := []struct {
		name string
		head plumbing.Hash
		want map[string]plumbing.Hash
	}{
		{name: "main", head: c6, want: map[string]plumbing.Hash{
			"a": c2, "b": merge, "d": c5, "e": c5, "keep": c1, ".": c6, "deep/1": c4, "deep/1/2/3": c4,
		}},
		{name: "feature branch", head: f2, want: map[string]plumbing.Hash{
			"a": c2, "b": f2, "keep": c1, ".": f2, "deep/1": c4, "deep/1/2/3": c4,
		}},
		{name: "feature's first commit", head: f1, want: map[string]plumbing.Hash{
			"a": c2, "b": f1, "keep": c1, ".": f1, "deep/1": c4, "deep/1/2/3": c4,
		}},
		{name: "folder deleted", head: c3, want: map[string]plumbing.Hash{
			"a": c2, "b": c1, "c": c1, "keep": c1, ".": c3, "deep/1": c1, "deep/1/2/3": c1,
		}},
		{name: "second commit", head: c2, want: map[string]plumbing.Hash{
			"a": c2, "b": c1, "c": c1, "e": c1, "keep": c1, ".": c2, "deep/1": c1, "deep/1/2/3": c1,
		}},
		{name: "root commit", head: c1, want: map[string]plumbing.Hash{
			"a": c1, "b": c1, "c": c1, "e": c1, "keep": c1, ".": c1, "deep/1": c1, "deep/1/2/3": c1,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := repo.LastChanged(t.Context(), tt.head, dirs)
			if err != nil {
				t.Fatalf("LastChanged: %v", err)
			}
			if !maps.Equal(got, tt.want) {
				t.Errorf("LastChanged =\n%v\nwant\n%v", got, tt.want)
			}
		})
	}

	t.Run("bad input", func(t *testing.T) {
		for _, dirs := range [][]string{{"../x"}, {"/a"}, {"a/"}, {`a\b`}} {
			if _, err := repo.LastChanged(t.Context(), c6, dirs); err == nil || !strings.Contains(err.Error(), "invalid folder") {
				t.Errorf("LastChanged(%q) = %v, want an invalid folder error", dirs, err)
			}
		}
		if _, err := repo.LastChanged(t.Context(), plumbing.NewHash(strings.Repeat("1", 40)), dirs); err == nil {
			t.Error("LastChanged from a missing commit succeeded")
		}
	})
}

// history is a generated repository: dirs folders, each with one file,
// and the commit that last changed each folder.
type history struct {
	repo *gitsource.Repo
	head plumbing.Hash
	dirs []string
	want map[string]plumbing.Hash
}

// newHistory writes a root commit with dirs folders, then commits-1
// commits that each change perCommit folders; folders never picked after
// the root keep the root as their last change. It needs no git CLI.
func newHistory(t testing.TB, dirs, commits, perCommit int) history {
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, true); err != nil {
		t.Fatal(err)
	}
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	h := history{repo: repo, want: map[string]plumbing.Hash{}}
	files := map[string][]byte{}
	for i := range dirs {
		d := fmt.Sprintf("clusters/c%02d/plans/ns/op%04d", i%10, i)
		h.dirs = append(h.dirs, d)
		files[d+"/installplan.yaml"] = []byte("v0\n")
	}
	for c := range commits {
		if c > 0 {
			files = map[string][]byte{}
			for k := range perCommit {
				d := h.dirs[(c*37+k*101)%(dirs/2)] // half the folders change only in the root
				files[d+"/installplan.yaml"] = []byte(fmt.Sprintf("v%d\n", c))
			}
		}
		head, err := repo.Commit(t.Context(), gitsource.CommitRequest{
			Parent: h.head, Branch: "main", Files: files, Message: fmt.Sprintf("commit %d", c), Author: author,
		})
		if err != nil {
			t.Fatal(err)
		}
		h.head = head
		for name := range files {
			parts := strings.Split(name, "/")
			for i := 1; i < len(parts); i++ { // every folder above the file changed
				h.want[strings.Join(parts[:i], "/")] = head
			}
		}
	}
	h.dirs = append(h.dirs, "clusters", "clusters/c00", "clusters/c01/plans")
	maps.DeleteFunc(h.want, func(d string, _ plumbing.Hash) bool { return !slices.Contains(h.dirs, d) })
	return h
}

func TestLastChangedGenerated(t *testing.T) {
	h := newHistory(t, 200, 50, 7)
	got, err := h.repo.LastChanged(t.Context(), h.head, h.dirs)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(got, h.want) {
		for _, d := range h.dirs {
			if got[d] != h.want[d] {
				t.Errorf("%s: last changed by %s, want %s", d, got[d], h.want[d])
			}
		}
	}
}

// BenchmarkLastChanged asks for 2000 folders over 200 commits; half of
// them changed only in the root commit, so every call walks all history.
func BenchmarkLastChanged(b *testing.B) {
	h := newHistory(b, 2000, 200, 10)
	for b.Loop() {
		got, err := h.repo.LastChanged(b.Context(), h.head, h.dirs)
		if err != nil {
			b.Fatal(err)
		}
		if len(got) != len(h.dirs) {
			b.Fatalf("found %d folders, want %d", len(got), len(h.dirs))
		}
	}
}
