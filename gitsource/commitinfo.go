package gitsource

import (
	"context"
	"fmt"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// CommitInfo is what a commit says besides its tree's content.
type CommitInfo struct {
	Hash, Tree plumbing.Hash
	Parents    []plumbing.Hash
	Author     object.Signature
	Committer  object.Signature
	Message    string
}

// CommitInfo reads the commit h.
func (r *Repo) CommitInfo(ctx context.Context, h plumbing.Hash) (*CommitInfo, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, err := r.r.CommitObject(h)
	if err != nil {
		return nil, fmt.Errorf("gitsource: commit %s: %w", h, ErrNotFound)
	}
	return &CommitInfo{Hash: c.Hash, Tree: c.TreeHash, Parents: c.ParentHashes, Author: c.Author, Committer: c.Committer, Message: c.Message}, nil
}
