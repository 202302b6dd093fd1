package gitsource

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/memory"
)

// secretText is the content of a file outside the folder the fuzzed FS is
// rooted at: no path, through any symlink, may read it.
const secretText = "SECRET-OUTSIDE-THE-SUB-FS"

// FuzzTreeFSSymlinks builds, in memory, a tree whose folder sub holds two
// symlinks with fuzzed names and targets, and looks a fuzzed path up in
// the FS of sub: whatever the targets (absolute, .., loops, chains through
// each other), nothing outside sub is reached, and every lookup ends.
func FuzzTreeFSSymlinks(f *testing.F) {
	for _, s := range [][5]string{
		{"link", "../secret", "l2", "file", "link"},
		{"link", "/secret", "l2", "../../secret", "dir/l2"},
		{"link", "dir/..", "l2", "../..", "dir/l2/secret"},
		{"link", "link", "l2", "../link", "dir/l2/x"},
		{"link", "dir", "l2", "../link/inner", "dir/l2"},
		{"a", "dir/b", "b", "../a", "a/inner"},
		{"link", "./../sub/../secret", "l2", ".", "link"},
		{"link", "dir/l2", "l2", "../../sub/file", "link"},
		{"link", "file", "l2", "inner", "."},
		{"link", "file", "l2", "inner", "secret"},
	} {
		f.Add(s[0], s[1], s[2], s[3], s[4])
	}
	f.Fuzz(func(t *testing.T, name1, target1, name2, target2, p string) {
		if !validEntryName(name1) || !validEntryName(name2) || name1 == "file" || name1 == "dir" || name2 == "inner" {
			t.Skip()
		}
		fsys, secret, top := symlinkTree(t, name1, target1, name2, target2)
		sub, err := fsys.Sub("sub")
		if err != nil {
			t.Fatal(err)
		}
		checkNoEscape(t, sub, p, secret, top)
		// A link out is refused as such, so that the loader can say why.
		c := path.Clean(target1)
		out := path.IsAbs(c) || c == ".." || strings.HasPrefix(c, "../")
		if _, err := fs.Stat(sub, name1); out && !errors.Is(err, errEscapes) {
			t.Fatalf("Stat(%q) through a link to %q: %v, want %v", name1, target1, err, errEscapes)
		}
	})
}

func checkNoEscape(t *testing.T, sub fs.FS, p string, secret, top plumbing.Hash) {
	if data, err := fs.ReadFile(sub, p); err == nil && bytes.Contains(data, []byte(secretText)) {
		t.Fatalf("ReadFile(%q) read the file outside the FS", p)
	}
	if info, err := fs.Stat(sub, p); err == nil {
		if h := info.Sys().(plumbing.Hash); h == secret || h == top {
			t.Fatalf("Stat(%q) reached %s, outside the FS", p, h)
		}
	}
	if es, err := fs.ReadDir(sub, p); err == nil {
		for _, e := range es {
			if e.Name() == "sub" && e.IsDir() {
				t.Fatalf("ReadDir(%q) listed the folder above the FS", p)
			}
		}
	}
	if file, err := sub.Open(p); err == nil {
		data, _ := io.ReadAll(io.LimitReader(file, 1<<10))
		file.Close()
		if bytes.Contains(data, []byte(secretText)) {
			t.Fatalf("Open(%q) read the file outside the FS", p)
		}
	}
}

// validEntryName is a name git can hold in a tree and io/fs can look up
// (UTF-8).
func validEntryName(s string) bool {
	return fs.ValidPath(s) && s != "." && !strings.ContainsAny(s, "/\x00")
}

// symlinkTree writes secret, sub/file, sub/dir/inner, sub/name1 → target1
// and sub/dir/name2 → target2, and returns the FS of the whole tree, the
// secret's blob and the top tree.
func symlinkTree(t *testing.T, name1, target1, name2, target2 string) (*treeFS, plumbing.Hash, plumbing.Hash) {
	r, err := git.Init(memory.NewStorage(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := r.Storer
	blob := func(data string) plumbing.Hash {
		o := s.NewEncodedObject()
		o.SetType(plumbing.BlobObject)
		w, _ := o.Writer()
		io.WriteString(w, data)
		w.Close()
		h, err := s.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	tree := func(es ...object.TreeEntry) plumbing.Hash {
		// git's order: a folder sorts as if its name ended with "/".
		key := func(e object.TreeEntry) string {
			if e.Mode == filemode.Dir {
				return e.Name + "/"
			}
			return e.Name
		}
		slices.SortFunc(es, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
		o := s.NewEncodedObject()
		if err := (&object.Tree{Entries: es}).Encode(o); err != nil {
			t.Fatal(err)
		}
		h, err := s.SetEncodedObject(o)
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	secret := blob(secretText)
	dir := tree(object.TreeEntry{Name: "inner", Mode: filemode.Regular, Hash: blob("inner")},
		object.TreeEntry{Name: name2, Mode: filemode.Symlink, Hash: blob(target2)})
	subTree := tree(object.TreeEntry{Name: "file", Mode: filemode.Regular, Hash: blob("inside")},
		object.TreeEntry{Name: "dir", Mode: filemode.Dir, Hash: dir},
		object.TreeEntry{Name: name1, Mode: filemode.Symlink, Hash: blob(target1)})
	top := tree(object.TreeEntry{Name: "secret", Mode: filemode.Regular, Hash: secret},
		object.TreeEntry{Name: "sub", Mode: filemode.Dir, Hash: subTree})
	st := &treeStore{repo: &Repo{r: r}, modTime: time.Unix(0, 0), trees: map[plumbing.Hash]*dirNode{}}
	root, err := st.dir(top)
	if err != nil {
		t.Fatal(err)
	}
	return &treeFS{store: st, root: root}, secret, top
}
