package gitsource

import (
	"errors"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// blobCacheSize and treeCacheSize bound the decoded git objects each
// open repository keeps. go-git's default is one 96 MiB cache per
// repository, and a catalog load filled it with blobs that are parsed
// once and never read again: 63% of a serving controller's live heap
// (docs/performance.md). Blobs keep a small cache of their own, enough
// for the bases of a delta chain (a delta is applied to the object it
// refers to, which is read again unless cached). Trees and commits keep a
// larger one: every pass walks the history of the plans' folders
// (LastChanged) and reads the same trees again.
const (
	blobCacheSize = 4 * cache.MiByte
	treeCacheSize = 16 * cache.MiByte
)

// maxOpenPacks is the packfiles an open repository keeps open between
// object reads. go-git's default opens and closes the packfile for every
// object it reads: a fleet pass reading thousands of trees and blobs
// spent 2 s of CPU in open(2) alone. Repo.Close closes them; Repo.mu
// already serialises every use of the storage, which go-git's shared
// packfiles need.
const maxOpenPacks = 32

// plainOpen opens the repository at path (bare, with a worktree, or a
// linked worktree whose objects live in the main repository's commondir)
// with an objectCache instead of go-git's default.
func plainOpen(path string) (*git.Repository, error) {
	r, err := git.PlainOpenWithOptions(path, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, err
	}
	return withObjectCache(r, newObjectCache())
}

// closeStorage closes the packfiles r keeps open and reopens its storage
// with go-git's default of opening a packfile per object read: a cached
// catalog reads large values back through the snapshot it was loaded
// from (fbc's detached values), after the pass closed the Repo, and must
// not hold descriptors open for as long as it is cached. r.mu is held.
func (r *Repo) closeStorage() error {
	s, ok := r.r.Storer.(*filesystem.Storage)
	if !ok {
		return nil
	}
	err := s.Close()
	var wt billy.Filesystem
	if w, werr := r.r.Worktree(); werr == nil {
		wt = w.Filesystem
	}
	reopened, oerr := git.Open(filesystem.NewStorage(s.Filesystem(), newObjectCache()), wt)
	if oerr != nil {
		return errors.Join(err, oerr)
	}
	r.r = reopened
	return err
}

// withObjectCache reopens r on the same files with c as its object cache.
// go-git decides where the git directory, the commondir and the worktree
// are; only the storage is built anew, since go-git offers no way to give
// PlainOpen a cache. r must not have been used yet: its cache is dropped.
func withObjectCache(r *git.Repository, c cache.Object) (*git.Repository, error) {
	s, ok := r.Storer.(*filesystem.Storage)
	if !ok {
		return r, nil // not on disk: no files to reopen
	}
	var wt billy.Filesystem
	switch w, err := r.Worktree(); {
	case err == nil:
		wt = w.Filesystem
	case !errors.Is(err, git.ErrIsBareRepository):
		return nil, err
	}
	return git.Open(filesystem.NewStorageWithOptions(s.Filesystem(), c, filesystem.Options{MaxOpenDescriptors: maxOpenPacks}), wt)
}

// objectCache is a cache.Object with an LRU for blobs and another for the
// other objects, so that reading a catalog's files does not evict the
// trees a history walk reads again.
type objectCache struct {
	blobs, others *cache.ObjectLRU
}

func newObjectCache() *objectCache {
	return &objectCache{blobs: cache.NewObjectLRU(blobCacheSize), others: cache.NewObjectLRU(treeCacheSize)}
}

// Put keeps o in the LRU of its kind.
func (c *objectCache) Put(o plumbing.EncodedObject) {
	if o.Type() == plumbing.BlobObject {
		c.blobs.Put(o)
		return
	}
	c.others.Put(o)
}

// Get finds the object h in either LRU.
func (c *objectCache) Get(h plumbing.Hash) (plumbing.EncodedObject, bool) {
	if o, ok := c.others.Get(h); ok {
		return o, true
	}
	return c.blobs.Get(h)
}

// Clear empties both LRUs.
func (c *objectCache) Clear() {
	c.blobs.Clear()
	c.others.Clear()
}
