package gitsource

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/internal/gittest"
)

// The diff a commit's edit guides equals go-git's whole-tree diff, for
// random commits that write, rewrite, delete and clear files and folders
// and turn files into folders and back.
func TestDiffTreesMatchesDiffTree(t *testing.T) {
	gittest.RequireGit(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	r, err := Open(t.Context(), Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	sig := object.Signature{Name: "t", Email: "t@t"}
	parent, err := r.Commit(t.Context(), CommitRequest{Branch: "main", Message: "init", Author: sig,
		Files: map[string][]byte{"a/x": []byte("1"), "a/b/y": []byte("2"), "c": []byte("3"), "d/e/f": []byte("4")}})
	if err != nil {
		t.Fatal(err)
	}
	paths := []string{"a", "a/x", "a/b", "a/b/y", "a/b/z", "c", "c/n", "d", "d/e", "d/e/f", "d/g", "h/i/j"}
	rnd := rand.New(rand.NewPCG(1, 2))
	for i := range 300 {
		files := map[string][]byte{}
		for range 1 + rnd.IntN(3) {
			p := paths[rnd.IntN(len(paths))]
			switch rnd.IntN(3) {
			case 0:
				files[p] = nil
			case 1:
				files[p] = []byte("same")
			default:
				files[p] = fmt.Appendf(nil, "%d", i)
			}
		}
		req := CommitRequest{Parent: parent, Branch: "main", Message: "m", Author: sig, Files: files}
		edits, err := validateCommit(req)
		if err != nil {
			continue // a path written as a file and as a folder
		}
		h, err := r.Commit(t.Context(), req)
		if err != nil {
			continue // nothing changed, or a write below a file
		}
		got, err := r.commitChanges(parent, h, edits)
		if err != nil {
			t.Fatal(err)
		}
		want := goGitChanges(t, r, parent, h)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("commit %d (%v):\ngot  %v\nwant %v", i, keys(files), got, want)
		}
		unguided, err := r.commitChanges(parent, h, nil)
		if err != nil || !reflect.DeepEqual(unguided, want) {
			t.Fatalf("commit %d without a guide: %v\ngot  %v\nwant %v", i, err, unguided, want)
		}
		parent = h
	}
}

func goGitChanges(t *testing.T, r *Repo, from, to plumbing.Hash) []pathChange {
	t.Helper()
	tree := func(h plumbing.Hash) *object.Tree {
		c, err := r.r.CommitObject(h)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := c.Tree()
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	changes, err := object.DiffTree(tree(from), tree(to))
	if err != nil {
		t.Fatal(err)
	}
	var out []pathChange
	for _, c := range changes {
		name := c.From.Name
		if name == "" {
			name = c.To.Name
		}
		out = append(out, pathChange{name: name, from: c.From.TreeEntry, to: c.To.TreeEntry})
	}
	// A file that becomes a folder of the same name is one entry per side.
	byName := map[string]pathChange{}
	for _, c := range out {
		prev := byName[c.name]
		prev.name = c.name
		if !c.from.Hash.IsZero() {
			prev.from = c.from
		}
		if !c.to.Hash.IsZero() {
			prev.to = c.to
		}
		byName[c.name] = prev
	}
	out = out[:0]
	for _, c := range byName {
		c.from.Name, c.to.Name = lastName(c.from, c.name), lastName(c.to, c.name)
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// lastName is the entry's own name, as a tree holds it; empty for none.
func lastName(e object.TreeEntry, p string) string {
	if e.Hash.IsZero() {
		return ""
	}
	return p[strings.LastIndex(p, "/")+1:]
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// A commit onto the checked-out branch that turns a file into a folder
// or a folder into a file is refused before the branch moves: the paths
// are in the way on disk, and olmops does not guess what else is there.
func TestCommitRefusesFileFolderSwapInWorktree(t *testing.T) {
	gittest.RequireGit(t)
	for name, files := range map[string]map[string][]byte{
		"folder to file": {"f": []byte("now a file\n")},
		"file to folder": {"g": nil, "g/y": []byte("y\n")},
	} {
		t.Run(name, func(t *testing.T) {
			dir, r, head := openWorktree(t, gittest.Change{Files: map[string][]byte{"f/x": []byte("x\n"), "g": []byte("g\n")}, Message: "init"})
			_, err := r.Commit(t.Context(), CommitRequest{Parent: head, Branch: "main", Message: "swap", Author: object.Signature{Name: "t", Email: "t@t"}, Files: files})
			if !errors.Is(err, ErrDirtyWorktree) {
				t.Fatalf("err = %v, want ErrDirtyWorktree", err)
			}
			if after, _ := r.Resolve(t.Context(), "main"); after != head {
				t.Error("the branch moved although the commit was refused")
			}
			if st := gittest.Git(t, dir, "status", "--porcelain"); st != "" {
				t.Errorf("git status after the refusal:\n%s", st)
			}
		})
	}
}

// A commit whose parent is not where the checked-out branch is brings the
// worktree to the new commit whole, not only the paths it wrote.
func TestCommitFromOlderParentInWorktree(t *testing.T) {
	gittest.RequireGit(t)
	dir, r, first := openWorktree(t, gittest.Change{Files: map[string][]byte{"keep": []byte("keep\n")}})
	sig := object.Signature{Name: "t", Email: "t@t"}
	for _, name := range []string{"x", "y"} {
		if _, err := r.Commit(t.Context(), CommitRequest{Parent: first, Branch: "main", Message: name, Author: sig,
			Files: map[string][]byte{name: []byte(name + "\n")}}); err != nil {
			t.Fatal(err)
		}
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Fatalf("git status after the commits:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(dir, "x")); !os.IsNotExist(err) {
		t.Errorf("x, which the branch no longer has, is still in the worktree: %v", err)
	}
}
