package planner

import (
	"container/list"
	"maps"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/plan"
)

// DefaultPlanCacheBytes is the file bytes a PlanCache keeps when
// NewPlanCache is given no size: the committed plans of 100 clusters × 20
// subscriptions of the fleet benchmark take about 10 MiB.
const DefaultPlanCacheBytes = 32 << 20

// PlanCache keeps committed plans read from snapshots by the git tree hash
// of their folder, across runs: a pass over a fleet re-read and re-parsed
// every plan of every cluster, although a commit changes few of them. The
// tree hash is the content address of every file below the folder, so an
// entry is served only for the exact files it was read from. It keeps the
// most recently used plans up to a total of file bytes, and is safe for
// concurrent use. A plan that fails to read is not kept.
//
// Each Get returns its own Committed, map and InstallPlan struct; the file
// bytes and the InstallPlan's slices and pointers are shared between runs
// and must not be modified (plan reads committed plans only).
type PlanCache struct {
	max int64

	mu      sync.Mutex
	size    int64
	lru     *list.List // of *planEntry, most recent first
	entries map[planKey]*list.Element
	stats   PlanCacheStats
}

// PlanCacheStats counts what a PlanCache did.
type PlanCacheStats struct {
	// Hits found the plan; Misses read it.
	Hits, Misses int
	// Evictions dropped the least recently used plan.
	Evictions int
}

// planKey is a plan folder's content address and its path, which the
// parsed plan's errors and the Committed's positions are relative to.
type planKey struct {
	tree plumbing.Hash
	dir  string
}

type planEntry struct {
	key   planKey
	plan  *v1alpha1.InstallPlan
	files map[string][]byte
	size  int64
}

// NewPlanCache returns a cache of up to maxBytes of plan files
// (DefaultPlanCacheBytes when maxBytes < 1).
func NewPlanCache(maxBytes int64) *PlanCache {
	if maxBytes < 1 {
		maxBytes = DefaultPlanCacheBytes
	}
	return &PlanCache{max: maxBytes, lru: list.New(), entries: map[planKey]*list.Element{}}
}

// get returns a copy of the plan of dir at tree, if kept.
func (c *PlanCache) get(tree plumbing.Hash, dir string) (*plan.Committed, bool) {
	if c == nil {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[planKey{tree: tree, dir: dir}]
	if !ok {
		c.stats.Misses++
		return nil, false
	}
	c.lru.MoveToFront(el)
	c.stats.Hits++
	e := el.Value.(*planEntry)
	p := *e.plan
	return &plan.Committed{Plan: &p, Files: maps.Clone(e.files)}, true
}

// add keeps a plan read from dir at tree; one larger than the whole cache
// is not kept.
func (c *PlanCache) add(tree plumbing.Hash, dir string, committed *plan.Committed) {
	if c == nil {
		return
	}
	var size int64
	for name, data := range committed.Files {
		size += int64(len(name) + len(data))
	}
	if size > c.max {
		return
	}
	p := *committed.Plan
	e := &planEntry{key: planKey{tree: tree, dir: dir}, plan: &p, files: maps.Clone(committed.Files), size: size}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[e.key]; ok {
		c.lru.MoveToFront(el)
		return
	}
	c.entries[e.key] = c.lru.PushFront(e)
	c.size += size
	for c.size > c.max {
		old := c.lru.Back()
		c.lru.Remove(old)
		oe := old.Value.(*planEntry)
		delete(c.entries, oe.key)
		c.size -= oe.size
		c.stats.Evictions++
	}
}

// Stats reports what the cache did so far.
func (c *PlanCache) Stats() PlanCacheStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}
