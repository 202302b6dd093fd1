package gitsource

import (
	"container/list"
	"context"
	"fmt"
	"io/fs"
	"path"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
)

// DefaultCatalogCacheSize is the number of catalogs a CatalogCache keeps
// when NewCatalogCache is given no size.
const DefaultCatalogCacheSize = 16

// CatalogCache keeps the catalogs loaded from snapshots by the git tree
// hash of their folder, so a catalog is parsed once however many commits
// share it. It keeps the most recently used entries up to its size, loads
// each missing entry once even when asked by several goroutines at a time,
// and is safe for concurrent use.
//
// The catalogs it returns are shared: callers must not modify them.
type CatalogCache struct {
	size int

	mu      sync.Mutex
	lru     *list.List // of *cacheEntry, most recent first
	entries map[cacheKey]*list.Element
	stats   CacheStats
}

// CacheStats counts what a CatalogCache did.
type CacheStats struct {
	// Hits found the catalog loaded (or being loaded by another caller).
	Hits int
	// Loads parsed a catalog.
	Loads int
	// Evictions dropped the least recently used catalog.
	Evictions int
}

// cacheKey is the content address of a catalog and what its model records
// besides content: its name and the folder its positions point into.
type cacheKey struct {
	tree plumbing.Hash
	dir  string
	name string
}

type cacheEntry struct {
	key   cacheKey
	ready chan struct{} // closed when cat and err are set
	cat   *catalog.Catalog
	err   error
}

// NewCatalogCache returns a cache of size catalogs
// (DefaultCatalogCacheSize when size < 1).
func NewCatalogCache(size int) *CatalogCache {
	if size < 1 {
		size = DefaultCatalogCacheSize
	}
	return &CatalogCache{size: size, lru: list.New(), entries: map[cacheKey]*list.Element{}}
}

// Get returns the catalog name in the folder dir of snap, loading it only
// when the cache holds no catalog of that name, folder and tree hash.
// Positions in the catalog are relative to the repository root. A failed
// load is not kept.
func (c *CatalogCache) Get(ctx context.Context, snap *Snapshot, dir, name string) (*catalog.Catalog, error) {
	dir = path.Clean(dir)
	tree, err := snap.TreeHash(dir)
	if err != nil {
		return nil, fmt.Errorf("gitsource: catalog %s: %w", name, err)
	}
	key := cacheKey{tree: tree, dir: dir, name: name}
	for {
		e, owner := c.lookup(key)
		if owner {
			e.cat, e.err = load(ctx, snap, key)
			if e.err != nil {
				c.forget(e)
			}
			close(e.ready)
			return e.cat, e.err
		}
		select {
		case <-e.ready:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if e.err == nil {
			return e.cat, nil
		}
		// The owner failed, perhaps only because its ctx ended: try again,
		// as the owner this time if no one else is.
	}
}

// Stats reports what the cache did so far.
func (c *CatalogCache) Stats() CacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// lookup finds the entry of key, or adds one that the caller (the owner)
// must fill.
func (c *CatalogCache) lookup(key cacheKey) (*cacheEntry, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[key]; ok {
		c.lru.MoveToFront(el)
		c.stats.Hits++
		return el.Value.(*cacheEntry), false
	}
	e := &cacheEntry{key: key, ready: make(chan struct{})}
	c.entries[key] = c.lru.PushFront(e)
	c.stats.Loads++
	for c.lru.Len() > c.size {
		old := c.lru.Back()
		c.lru.Remove(old)
		delete(c.entries, old.Value.(*cacheEntry).key)
		c.stats.Evictions++
	}
	return e, true
}

func (c *CatalogCache) forget(e *cacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[e.key]; ok && el.Value == e {
		c.lru.Remove(el)
		delete(c.entries, e.key)
	}
}

func load(ctx context.Context, snap *Snapshot, key cacheKey) (*catalog.Catalog, error) {
	logr.FromContextOrDiscard(ctx).V(1).Info("loading catalog", "catalog", key.name, "dir", key.dir, "tree", key.tree.String())
	fsys, err := fs.Sub(snap.FS(), key.dir)
	if err != nil {
		return nil, fmt.Errorf("gitsource: catalog %s: %w", key.name, err)
	}
	prefix := key.dir
	if prefix == "." {
		prefix = ""
	}
	cfg, err := fbc.Load(ctx, fsys, fbc.Options{Prefix: prefix})
	if err != nil {
		return nil, err
	}
	return catalog.New(key.name, cfg), nil
}
