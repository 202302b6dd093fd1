package gitsource

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-logr/logr"
)

// ErrNoChange reports a Commit whose files leave the parent's tree as it
// was; no commit is written.
var ErrNoChange = errors.New("nothing to commit: the files are already as requested")

// CommitRequest is one change to write as one commit.
type CommitRequest struct {
	// Parent is the commit the change applies to; zero writes a root
	// commit.
	Parent plumbing.Hash
	// Branch (a short name, such as main or olmops/plan-x) is moved to
	// the new commit. Exactly one of Branch and Ref is set.
	Branch string
	// Ref is a full ref name under refs/, such as refs/notes/olmops, moved
	// to the new commit instead of a branch. Remote-tracking refs
	// (refs/remotes/, and where Fetch keeps other refs) are refused.
	Ref string
	// Files to write by slash path relative to the repository root. A nil
	// value deletes the file or the whole folder at that path; files below
	// a deleted folder in the same request are written into it afresh.
	Files map[string][]byte
	// Message of the commit.
	Message string
	// Author, also recorded as the committer. When is now when zero.
	Author object.Signature

	// fromEmpty applies Files to an empty tree while keeping Parent as the
	// parent: a proposal record, whose tree is only its metadata.
	fromEmpty bool
}

// refName is the ref req moves, checked.
func (req CommitRequest) refName() (plumbing.ReferenceName, error) {
	switch {
	case (req.Branch == "") == (req.Ref == ""):
		return "", errors.New("set exactly one of Branch and Ref")
	case req.Ref != "":
		return plumbing.ReferenceName(req.Ref), checkRefName(req.Ref)
	}
	name := plumbing.NewBranchReferenceName(req.Branch)
	if err := name.Validate(); err != nil {
		return "", fmt.Errorf("invalid branch name %q", req.Branch)
	}
	return name, nil
}

// Commit writes req as one commit on top of req.Parent and moves the
// branch (or ref) to it, building the tree in memory from the parent's
// tree; no worktree is involved. The branch moves only when every object is
// written, and only if no one moved it meanwhile, so a failure leaves it
// where it was. In a cache clone the local branch only stages the commit
// for Push: it is overwritten whatever it held.
func (r *Repo) Commit(ctx context.Context, req CommitRequest) (plumbing.Hash, error) {
	target := req.Branch
	if req.Ref != "" {
		target = req.Ref
	}
	fail := func(err error) (plumbing.Hash, error) {
		return plumbing.ZeroHash, fmt.Errorf("gitsource: commit on %s: %w", target, err)
	}
	refName, err := req.refName()
	if err != nil {
		return fail(err)
	}
	edits, err := validateCommit(req)
	if err != nil {
		return fail(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	old, err := r.r.Storer.Reference(refName)
	if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return fail(err)
	}
	var base plumbing.Hash
	var parents []plumbing.Hash
	if !req.Parent.IsZero() {
		if base, err = r.commitTree(req.Parent); err != nil {
			return fail(fmt.Errorf("parent %s: %w", req.Parent, ErrNotFound))
		}
		parents = []plumbing.Hash{req.Parent}
		if req.fromEmpty {
			base = plumbing.ZeroHash
		}
	}
	if r.trees != nil {
		r.trees.turn()
	}
	w := &treeWriter{r: r, ctx: ctx, pack: r.packing(), fresh: map[plumbing.Hash]bool{}}
	tree, _, err := w.apply(edits, base, "")
	if err != nil {
		return fail(err)
	}
	if tree.IsZero() {
		if tree, err = w.put(&object.Tree{}); err != nil {
			return fail(err)
		}
	}
	if tree == base && len(parents) > 0 {
		return fail(ErrNoChange)
	}
	sig := req.Author
	if sig.When.IsZero() {
		sig.When = time.Now()
	}
	c := &object.Commit{Author: sig, Committer: sig, Message: req.Message, TreeHash: tree, ParentHashes: parents}
	h, err := w.put(c)
	if err != nil {
		return fail(err)
	}
	if err := w.flush(); err != nil {
		return fail(err)
	}
	if r.trees != nil {
		r.trees.commits[h] = tree
	}
	// When the branch is where the request starts, the edit is the whole
	// difference: the worktree's update reads only the folders it names.
	var guide *edit
	if old != nil && old.Hash() == req.Parent && !req.fromEmpty {
		guide = edits
	}
	if err := r.moveRef(refName, old, h, guide); err != nil {
		return fail(fmt.Errorf("move branch: %w", err))
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("committed", "ref", refName.String(), "commit", h.String(), "files", len(req.Files))
	return h, nil
}

// edit is the part of a CommitRequest below one folder.
type edit struct {
	data     []byte // content to write; nil with no children: delete
	clear    bool   // start from an empty folder (a nil entry with children)
	children map[string]*edit
}

// file is the content e writes at the slash path name; nil when e does
// not write a file there (or e is nil).
func (e *edit) file(name string) []byte {
	for e != nil {
		dir, rest, more := strings.Cut(name, "/")
		e = e.children[dir]
		if !more {
			break
		}
		name = rest
	}
	if e == nil || len(e.children) > 0 {
		return nil
	}
	return e.data
}

func validateCommit(req CommitRequest) (*edit, error) {
	if strings.TrimSpace(req.Message) == "" {
		return nil, errors.New("empty commit message")
	}
	if req.Author.Name == "" || req.Author.Email == "" {
		return nil, errors.New("author name and email are required")
	}
	if len(req.Files) == 0 {
		return nil, ErrNoChange
	}
	root := &edit{children: map[string]*edit{}}
	paths := make([]string, 0, len(req.Files))
	for p := range req.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths) // a folder's own entry comes before the files below it
	for _, p := range paths {
		if !fs.ValidPath(p) || p == "." || strings.Contains(p, "\\") {
			return nil, fmt.Errorf("invalid path %q: want a clean slash path relative to the root", p)
		}
		parts := strings.Split(p, "/")
		for _, part := range parts {
			if strings.EqualFold(part, ".git") {
				return nil, fmt.Errorf("invalid path %q: .git is reserved", p)
			}
		}
		n := root
		for _, part := range parts[:len(parts)-1] {
			child := n.children[part]
			switch {
			case child == nil:
				child = &edit{children: map[string]*edit{}}
				n.children[part] = child
			case child.data != nil:
				return nil, fmt.Errorf("path %q is written as a file and as a folder", p)
			case len(child.children) == 0 && !child.clear:
				child.clear = true // deleted above, now filled afresh
			}
			n = child
		}
		name := parts[len(parts)-1]
		if prev := n.children[name]; prev != nil && len(prev.children) > 0 {
			return nil, fmt.Errorf("path %q is written as a file and as a folder", p)
		}
		n.children[name] = &edit{data: req.Files[p], children: map[string]*edit{}}
	}
	return root, nil
}

// treeWriter writes trees and blobs into the repository; the caller holds
// r.mu.
type treeWriter struct {
	r   *Repo
	ctx context.Context
	// pack, while the index is held, keeps the new objects in pending (and
	// their hashes in fresh) until flush writes them as one pack.
	pack    bool
	pending []plumbing.EncodedObject
	fresh   map[plumbing.Hash]bool
}

// flush writes the pending objects; only then may a ref point at them.
func (w *treeWriter) flush() error {
	if err := w.r.writePack(w.pending); err != nil {
		return err
	}
	for _, o := range w.pending {
		w.r.known[o.Hash()] = true
	}
	w.pending = nil
	return nil
}

// apply writes the tree that results from applying e to the tree base
// (zero for none). It returns the zero hash when the result is empty.
func (w *treeWriter) apply(e *edit, base plumbing.Hash, dir string) (plumbing.Hash, bool, error) {
	if err := w.ctx.Err(); err != nil {
		return plumbing.ZeroHash, false, err
	}
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() && !e.clear {
		t, err := w.r.tree(base)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read tree %s: %w", dir, err)
		}
		for _, te := range t.Entries {
			entries[te.Name] = te
		}
	}
	for name, child := range e.children {
		p := strings.TrimPrefix(dir+"/"+name, "/")
		old, had := entries[name]
		switch {
		case child.data != nil:
			h, err := w.putBlob(child.data)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			mode := filemode.Regular
			if had && old.Mode == filemode.Executable {
				mode = filemode.Executable
			}
			entries[name] = object.TreeEntry{Name: name, Mode: mode, Hash: h}
		case len(child.children) == 0:
			delete(entries, name)
		default:
			var sub plumbing.Hash
			if had && old.Mode == filemode.Dir && !child.clear {
				sub = old.Hash
			} else if had && old.Mode != filemode.Dir && !child.clear {
				return plumbing.ZeroHash, false, fmt.Errorf("cannot write below %s: it is a file", p)
			}
			h, empty, err := w.apply(child, sub, p)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			if empty {
				delete(entries, name)
			} else {
				entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
			}
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, true, nil
	}
	t := &object.Tree{Entries: make([]object.TreeEntry, 0, len(entries))}
	for _, te := range entries {
		t.Entries = append(t.Entries, te)
	}
	sort.Slice(t.Entries, func(i, j int) bool { return gitLess(t.Entries[i], t.Entries[j]) })
	h, err := w.put(t)
	if err == nil && w.r.trees != nil {
		w.r.trees.put(h, t)
	}
	return h, false, err
}

// gitLess is git's tree order: names compare bytewise with a folder's name
// followed by a slash. It allocates nothing: sorting a commit's trees with
// concatenated names was a tenth of a fleet's commit time.
func gitLess(a, b object.TreeEntry) bool {
	n := min(len(a.Name), len(b.Name))
	if i := commonPrefix(a.Name[:n], b.Name[:n]); i < n {
		return a.Name[i] < b.Name[i]
	}
	return nameTail(a, n) < nameTail(b, n)
}

func commonPrefix(a, b string) int {
	i := 0
	for i < len(a) && a[i] == b[i] {
		i++
	}
	return i
}

// nameTail is the byte of e's sort name at n: the name's own, a folder's
// trailing slash, or -1 past the end.
func nameTail(e object.TreeEntry, n int) int {
	switch {
	case n < len(e.Name):
		return int(e.Name[n])
	case n == len(e.Name) && e.Mode == filemode.Dir:
		return '/'
	}
	return -1
}

// putBlob stores data as a blob.
func (w *treeWriter) putBlob(data []byte) (plumbing.Hash, error) {
	obj := w.r.r.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	wr, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	if _, err := wr.Write(data); err != nil {
		return plumbing.ZeroHash, err
	}
	if err := wr.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.store(obj)
}

// encoder is a tree or a commit.
type encoder interface {
	Encode(plumbing.EncodedObject) error
}

// put stores a tree or a commit.
func (w *treeWriter) put(o encoder) (plumbing.Hash, error) {
	obj := w.r.r.Storer.NewEncodedObject()
	if err := o.Encode(obj); err != nil {
		return plumbing.ZeroHash, err
	}
	return w.store(obj)
}

// store writes obj unless the repository has it already. While the
// index is held, an object found or written once is not looked for
// again: the manifests every cluster shares cost one lookup, not one per
// cluster.
func (w *treeWriter) store(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	h := obj.Hash()
	if w.r.known[h] || w.fresh[h] {
		return h, nil
	}
	has, err := w.r.has(h)
	switch {
	case err != nil:
		return plumbing.ZeroHash, err
	case has:
		if w.r.known != nil {
			w.r.known[h] = true
		}
		return h, nil
	case w.pack:
		w.fresh[h] = true
		w.pending = append(w.pending, obj)
		return h, nil
	}
	return w.r.r.Storer.SetEncodedObject(obj)
}
