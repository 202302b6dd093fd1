package gitsource

import (
	"context"
	"fmt"
	"io/fs"

	"github.com/go-git/go-git/v5/plumbing"
)

// Snapshot is the tree of one commit, read without a checkout.
type Snapshot struct {
	commit plumbing.Hash
	tree   plumbing.Hash
	fs     *treeFS
}

// Snapshot opens the tree of commit for reading.
func (r *Repo) Snapshot(ctx context.Context, commit plumbing.Hash) (*Snapshot, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	c, err := r.r.CommitObject(commit)
	r.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("gitsource: snapshot %s: %w", commit, ErrNotFound)
	}
	st := &treeStore{repo: r, modTime: c.Committer.When, trees: map[plumbing.Hash]*dirNode{}}
	root, err := st.dir(c.TreeHash)
	if err != nil {
		return nil, fmt.Errorf("gitsource: snapshot %s: %w", commit, err)
	}
	return &Snapshot{commit: commit, tree: c.TreeHash, fs: &treeFS{store: st, root: root}}, nil
}

// Commit is the commit the snapshot reads.
func (s *Snapshot) Commit() plumbing.Hash { return s.commit }

// FS reads the snapshot's tree. It implements fs.ReadDirFS, fs.ReadFileFS,
// fs.StatFS and fs.SubFS. Files are regular files with their sizes and
// modes (0644, or 0755 when executable); every entry's ModTime is the
// commit time and Sys() is its git object hash. Symlinks show as
// fs.ModeSymlink in ReadDir and are followed by Open and Stat only while
// they stay inside the FS (a Sub confines them to the folder); one that
// leaves fails like os.Root does ("path escapes from parent").
// Submodules are left out.
func (s *Snapshot) FS() fs.FS { return s.fs }

// TreeHash is the git tree hash of the folder dir ("." for the root): the
// content address of everything below it, equal across commits exactly
// when nothing below dir changed.
func (s *Snapshot) TreeHash(dir string) (plumbing.Hash, error) {
	e, err := s.fs.resolve("stat", dir, true)
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("gitsource: tree hash: %w", err)
	}
	if !e.mode.IsDir() {
		return plumbing.ZeroHash, fmt.Errorf("gitsource: tree hash: %s is not a folder", dir)
	}
	return e.hash, nil
}
