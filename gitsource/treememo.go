package gitsource

import (
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// treeMemo keeps the trees of the last two commits made while the index
// is held, decoded. A fleet's commits all rewrite the same few large
// folders (the one holding every cluster's folder has one entry per
// cluster): without the memo each commit read back and decoded the tree
// the previous commit had just written, twice (to build on it and to
// compare it for the worktree), which grew with the clusters. Two
// generations bound it to what two commits touch: a tree used by this
// commit moves to the current one, the rest go at the next commit.
//
// commits maps the commits written while the index is held to their
// trees: the next commit starts from one and the worktree's update
// compares two. Read through go-git, each such read reloaded the index
// of every pack, since a commit's new pack makes go-git's list stale.
type treeMemo struct {
	cur, prev map[plumbing.Hash]*object.Tree
	commits   map[plumbing.Hash]plumbing.Hash
}

// turn starts a new commit's generation.
func (m *treeMemo) turn() {
	m.prev, m.cur = m.cur, make(map[plumbing.Hash]*object.Tree, len(m.cur))
}

func (m *treeMemo) get(h plumbing.Hash) *object.Tree {
	if t := m.cur[h]; t != nil {
		return t
	}
	if t := m.prev[h]; t != nil {
		m.cur[h] = t
		return t
	}
	return nil
}

func (m *treeMemo) put(h plumbing.Hash, t *object.Tree) {
	if m.cur != nil {
		m.cur[h] = t
	}
}

// tree reads the tree h, through the memo while the index is held; the
// caller must not change its entries. Called with r.mu held.
func (r *Repo) tree(h plumbing.Hash) (*object.Tree, error) {
	if r.trees == nil {
		return object.GetTree(r.r.Storer, h)
	}
	if t := r.trees.get(h); t != nil {
		return t, nil
	}
	t, err := object.GetTree(r.r.Storer, h)
	if err != nil {
		return nil, err
	}
	r.trees.put(h, t)
	return t, nil
}

// commitTree reads the tree of the commit h, through the memo while the
// index is held. Called with r.mu held.
func (r *Repo) commitTree(h plumbing.Hash) (plumbing.Hash, error) {
	if r.trees != nil {
		if t, ok := r.trees.commits[h]; ok {
			return t, nil
		}
	}
	c, err := r.r.CommitObject(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return c.TreeHash, nil
}
