package gitsource

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// MaxLastChangedDepth bounds the first-parent commits LastChanged walks.
const MaxLastChangedDepth = 10000

// lastChangedDepth is MaxLastChangedDepth, lowered by tests.
var lastChangedDepth = MaxLastChangedDepth

// LastChanged finds, for each folder of dirs (slash paths from the root,
// "." for the root itself), the commit that last changed it: the newest
// commit on head's first-parent chain whose tree of the folder differs
// from its first parent's. A merge commit is the one that changed what it
// brought in, so a merged proposal's plans are carried by the merge; a
// root commit changed every folder it has. A folder that does not exist at
// head is left out of the map.
//
// One walk serves all folders and ends when every folder is found. A
// folder untouched for MaxLastChangedDepth commits maps to the oldest
// commit walked; callers that walk from the same head still agree on it.
func (r *Repo) LastChanged(ctx context.Context, head plumbing.Hash, dirs []string) (map[string]plumbing.Hash, error) {
	fail := func(err error) (map[string]plumbing.Hash, error) {
		return nil, fmt.Errorf("gitsource: last changed from %s: %w", head, err)
	}
	root, err := newDirTrie(dirs)
	if err != nil {
		return fail(err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	w := &changeWalk{r: r, trees: map[treeAt]map[*dirTrie]plumbing.Hash{}, found: map[string]plumbing.Hash{}}
	c, err := r.r.CommitObject(head)
	if err != nil {
		return fail(fmt.Errorf("commit %s: %w", head, ErrNotFound))
	}
	if _, err := w.dropAbsent(root, c.TreeHash); err != nil {
		return fail(err)
	}
	for depth := 1; root.pending > 0; depth++ {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		var parent *object.Commit
		parentTree := plumbing.ZeroHash
		if len(c.ParentHashes) > 0 {
			if parent, err = r.r.CommitObject(c.ParentHashes[0]); err != nil {
				return fail(fmt.Errorf("commit %s: %w", c.ParentHashes[0], ErrNotFound))
			}
			parentTree = parent.TreeHash
		}
		if _, err := w.diff(root, c.TreeHash, parentTree, c.Hash); err != nil {
			return fail(err)
		}
		if parent == nil || depth >= lastChangedDepth {
			w.settle(root, c.Hash)
			break
		}
		c = parent
	}
	return w.found, nil
}

// dirTrie holds the folders still looked for, by path component.
type dirTrie struct {
	dir      string // the folder asked for ending here; "" for none
	children map[string]*dirTrie
	pending  int // folders below and at this node not found yet
}

func newDirTrie(dirs []string) (*dirTrie, error) {
	root := &dirTrie{children: map[string]*dirTrie{}}
	for _, d := range dirs {
		if !fs.ValidPath(d) || strings.Contains(d, "\\") {
			return nil, fmt.Errorf("invalid folder %q: want a clean slash path relative to the root", d)
		}
		n := root
		if d != "." {
			for _, part := range strings.Split(d, "/") {
				child := n.children[part]
				if child == nil {
					child = &dirTrie{children: map[string]*dirTrie{}}
					n.children[part] = child
				}
				n = child
			}
		}
		n.dir = d
	}
	root.count()
	return root, nil
}

func (n *dirTrie) count() int {
	total := 0
	if n.dir != "" {
		total = 1
	}
	for _, c := range n.children {
		total += c.count()
	}
	n.pending = total
	return total
}

// changeWalk compares the trees of consecutive commits along the folders
// of a dirTrie; the caller holds r.mu.
type changeWalk struct {
	r     *Repo
	trees map[treeAt]map[*dirTrie]plumbing.Hash
	found map[string]plumbing.Hash
}

// treeAt is a tree read for a trie node. Equal folders share a tree, so
// the node is part of the key: it says which names were picked.
type treeAt struct {
	tree plumbing.Hash
	node *dirTrie
}

// subdirs are the folders of tree h that n has children for, by child.
// It scans the raw tree instead of decoding it: only a few of its entries
// are wanted, and this runs for every changed folder of every commit.
func (w *changeWalk) subdirs(h plumbing.Hash, n *dirTrie) (map[*dirTrie]plumbing.Hash, error) {
	if h.IsZero() {
		return nil, nil
	}
	key := treeAt{h, n}
	if m, ok := w.trees[key]; ok {
		return m, nil
	}
	data, err := w.rawTree(h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	m := make(map[*dirTrie]plumbing.Hash, min(len(n.children), len(data)/28)) // 28: the shortest entry
	for len(data) > 0 {
		// An entry is "<octal mode> <name>\x00<20-byte hash>".
		sp := bytes.IndexByte(data, ' ')
		nul := bytes.IndexByte(data, 0)
		if sp < 0 || nul < sp || len(data) < nul+21 {
			return nil, fmt.Errorf("read tree %s: malformed entry", h)
		}
		if child := n.children[string(data[sp+1:nul])]; child != nil && string(data[:sp]) == "40000" {
			var sub plumbing.Hash
			copy(sub[:], data[nul+1:nul+21])
			m[child] = sub
		}
		data = data[nul+21:]
	}
	w.trees[key] = m
	return m, nil
}

func (w *changeWalk) rawTree(h plumbing.Hash) ([]byte, error) {
	obj, err := w.r.r.Storer.EncodedObject(plumbing.TreeObject, h)
	if err != nil {
		return nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	data := make([]byte, obj.Size())
	_, err = io.ReadFull(rd, data)
	return data, err
}

// dropAbsent stops looking for the folders that tree (at head) lacks, and
// returns how many it dropped.
func (w *changeWalk) dropAbsent(n *dirTrie, tree plumbing.Hash) (int, error) {
	dropped := 0
	if tree.IsZero() {
		dropped = n.pending
		n.pending = 0
		return dropped, nil
	}
	sub, err := w.subdirs(tree, n)
	if err != nil {
		return 0, err
	}
	for _, child := range n.children {
		d, err := w.dropAbsent(child, sub[child])
		if err != nil {
			return 0, err
		}
		dropped += d
	}
	n.pending -= dropped
	return dropped, nil
}

// diff records commit for the pending folders below n whose tree differs
// between cur and parent (zero hashes for absent), and returns how many it
// found. Equal trees end the descent: nothing below them changed.
func (w *changeWalk) diff(n *dirTrie, cur, parent, commit plumbing.Hash) (int, error) {
	if n.pending == 0 || cur == parent {
		return 0, nil
	}
	found := 0
	if n.dir != "" {
		if _, done := w.found[n.dir]; !done {
			w.found[n.dir] = commit
			found++
		}
	}
	if len(n.children) > 0 {
		curSub, err := w.subdirs(cur, n)
		if err != nil {
			return 0, err
		}
		parentSub, err := w.subdirs(parent, n)
		if err != nil {
			return 0, err
		}
		for _, child := range n.children {
			f, err := w.diff(child, curSub[child], parentSub[child], commit)
			if err != nil {
				return 0, err
			}
			found += f
		}
	}
	n.pending -= found
	return found, nil
}

// settle maps the folders still pending to commit, where the walk ended.
func (w *changeWalk) settle(n *dirTrie, commit plumbing.Hash) {
	if n.pending == 0 {
		return
	}
	if n.dir != "" {
		if _, done := w.found[n.dir]; !done {
			w.found[n.dir] = commit
		}
	}
	for _, child := range n.children {
		w.settle(child, commit)
	}
	n.pending = 0
}
