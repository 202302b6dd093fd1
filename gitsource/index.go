package gitsource

import (
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// errIndexChanged reports an index that someone else changed, at a path
// olmops had yet to write there, while olmops held it: neither version
// can be kept safely.
var errIndexChanged = errors.New("the worktree's index changed where olmops writes while it was committing: check `git status`, reset the index to the branch, and plan again")

// worktreeIndex is the checked-out worktree's index held in memory between
// commits, with a path map: reading, searching and rewriting the whole
// index on every commit made planning a fleet quadratic in its clusters.
type worktreeIndex struct {
	idx     *index.Index
	byPath  map[string]*index.Entry
	removed map[*index.Entry]bool
	// stamp is the file's size and time when read or last written; a
	// different stamp means someone else wrote it (git status does).
	stamp indexStamp
	// pending are olmops's changes not yet written, by path (nil: removed),
	// and base what the index had at those paths before them (zero: none):
	// what is replayed onto an index someone else rewrote meanwhile.
	pending map[string]*index.Entry
	base    map[string]plumbing.Hash
}

func newWorktreeIndex(idx *index.Index, stamp indexStamp) *worktreeIndex {
	wi := &worktreeIndex{idx: idx, byPath: make(map[string]*index.Entry, len(idx.Entries)), removed: map[*index.Entry]bool{},
		stamp: stamp, pending: map[string]*index.Entry{}, base: map[string]plumbing.Hash{}}
	for _, e := range idx.Entries {
		if prev := wi.byPath[e.Name]; prev == nil || e.Stage != mergedStage {
			wi.byPath[e.Name] = e // a conflict's stages win, so the path reads as dirty
		}
	}
	return wi
}

// mergedStage is the stage of an entry without a conflict, as git writes
// it (go-git's index.Merged constant is 1, the stage of a conflict's base).
const mergedStage index.Stage = 0

type indexStamp struct {
	size int64
	mod  time.Time
	ok   bool // false: a storage whose file cannot be seen
}

// entry is the merged (stage 0) entry at name; ok is false for a path
// the index does not have, or has only as a merge conflict.
func (wi *worktreeIndex) entry(name string) (*index.Entry, bool) {
	e := wi.byPath[name]
	return e, e != nil && e.Stage == mergedStage
}

// hash is the blob the index has at name; zero for none or a conflict.
func (wi *worktreeIndex) hash(name string) plumbing.Hash {
	if e, ok := wi.entry(name); ok {
		return e.Hash
	}
	return plumbing.ZeroHash
}

func (wi *worktreeIndex) note(name string) {
	if _, ok := wi.base[name]; !ok {
		wi.base[name] = wi.hash(name)
	}
}

// set records name at e's values, adding it when new.
func (wi *worktreeIndex) set(name string, upd func(*index.Entry)) {
	wi.note(name)
	e, ok := wi.entry(name)
	if !ok {
		e = wi.idx.Add(name)
		wi.byPath[name] = e
	}
	upd(e)
	c := *e
	wi.pending[name] = &c
}

func (wi *worktreeIndex) remove(name string) {
	wi.note(name)
	wi.pending[name] = nil
	if e := wi.byPath[name]; e != nil {
		wi.removed[e] = true
		delete(wi.byPath, name)
	}
}

// replay applies wi's pending changes onto fresh, the index as someone
// else rewrote it, if that left every path olmops changes as it was.
func (wi *worktreeIndex) replay(fresh *worktreeIndex) error {
	for name, was := range wi.base {
		if fresh.hash(name) != was {
			return fmt.Errorf("%w (%s)", errIndexChanged, name)
		}
	}
	for name, e := range wi.pending {
		if e == nil {
			fresh.remove(name)
			continue
		}
		fresh.set(name, func(dst *index.Entry) { *dst = *e })
	}
	return nil
}

// loadIndex returns the worktree's index: the one in memory when the file
// is still as olmops left it, else read afresh, with olmops's unwritten
// changes replayed onto it. Called with r.mu held.
func (r *Repo) loadIndex() (*worktreeIndex, error) {
	stamp := r.indexStamp()
	old := r.wtIndex
	if old != nil && stamp.ok && stamp == old.stamp {
		return old, nil
	}
	idx, err := r.r.Storer.Index()
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	wi := newWorktreeIndex(idx, stamp)
	if old != nil && len(old.pending) > 0 {
		if err := old.replay(wi); err != nil {
			return nil, err
		}
	}
	r.wtIndex = wi
	return wi, nil
}

// flushIndex writes the index in memory, if it changed, unless a
// HoldIndex is in force. Called with r.mu held.
func (r *Repo) flushIndex() error {
	if r.wtIndex == nil || len(r.wtIndex.pending) == 0 || (r.indexHolds > 0 && r.wtIndex.stamp.ok) {
		return nil // an index olmops cannot watch is never left unwritten
	}
	wi, err := r.loadIndex()
	if err != nil {
		return err
	}
	if len(wi.removed) > 0 {
		kept := wi.idx.Entries[:0]
		for _, e := range wi.idx.Entries {
			if !wi.removed[e] {
				kept = append(kept, e)
			}
		}
		wi.idx.Entries, wi.removed = kept, map[*index.Entry]bool{}
	}
	if err := r.r.Storer.SetIndex(wi.idx); err != nil {
		r.wtIndex = nil // the file is in an unknown state: read it again next time
		return fmt.Errorf("write index: %w", err)
	}
	wi.stamp = r.indexStamp()
	wi.pending, wi.base = map[string]*index.Entry{}, map[string]plumbing.Hash{}
	return nil
}

// indexStamp stats the index file.
func (r *Repo) indexStamp() indexStamp {
	st, ok := r.r.Storer.(*filesystem.Storage)
	if !ok {
		return indexStamp{}
	}
	fi, err := st.Filesystem().Stat("index")
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return indexStamp{size: -1, ok: true}
	case err != nil:
		return indexStamp{}
	}
	return indexStamp{size: fi.Size(), mod: fi.ModTime(), ok: true}
}

// HoldIndex keeps the worktree's index in memory until the returned
// function is called: Commits onto the checked-out branch still refuse to
// overwrite uncommitted work, and still update the files and move the
// branch one by one, but the index, whose size grows with the repository,
// is written once at the end instead of once per commit. Between the two
// `git status` shows the files as changed; the release writes the index
// and says if it could not. A bare repository, or a branch that is not
// checked out, is not affected. Holds nest; release is idempotent.
//
// While held, in a repository on disk, every Commit writes its new
// objects as one pack instead of one file each, and merges its packs as
// they pile up (see pack.go); the last release leaves one pack for all of
// the hold's commits. A ref moves only once the pack holding its objects
// is in place.
func (r *Repo) HoldIndex() (release func() error) {
	r.mu.Lock()
	if r.indexHolds == 0 {
		r.known, r.trees = map[plumbing.Hash]bool{}, &treeMemo{commits: map[plumbing.Hash]plumbing.Hash{}}
	}
	r.indexHolds++
	r.mu.Unlock()
	released := false
	return func() error {
		r.mu.Lock()
		defer r.mu.Unlock()
		if released {
			return nil
		}
		released = true
		r.indexHolds--
		var errs []error
		if r.indexHolds == 0 {
			errs = append(errs, r.consolidatePacks())
			r.packs, r.known, r.trees, r.present = nil, nil, nil, nil
		}
		errs = append(errs, r.flushIndex())
		if err := errors.Join(errs...); err != nil {
			return fmt.Errorf("gitsource: %w", err)
		}
		return nil
	}
}
