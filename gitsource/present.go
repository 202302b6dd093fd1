package gitsource

import (
	"path"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// present is what the object store held when a held index's first commit
// looked: the loose objects by name and the packs' indexes. go-git's
// HasEncodedObject opens the loose object's file first, so every object
// a commit adds cost a failed open, about 65 per fleet commit. Read once,
// a lookup costs no system call.
//
// An object someone else adds meanwhile is not seen, and is written
// again in olmops's pack: a duplicate git accepts. The objects olmops
// itself writes are in Repo.known.
type present struct {
	loose map[plumbing.Hash]bool
	packs []idxfile.Index
}

// has tells whether h was in the store.
func (p *present) has(h plumbing.Hash) bool {
	if p.loose[h] {
		return true
	}
	for _, idx := range p.packs {
		if ok, err := idx.Contains(h); err == nil && ok {
			return true
		}
	}
	return false
}

// readPresent lists st's loose objects and reads its packs' indexes.
func readPresent(st *filesystem.Storage) (*present, error) {
	fsys := st.Filesystem()
	p := &present{loose: map[plumbing.Hash]bool{}}
	err := st.ForEachObjectHash(func(h plumbing.Hash) error { // the loose ones
		p.loose[h] = true
		return nil
	})
	if err != nil {
		return nil, err
	}
	packs, err := st.ObjectPacks()
	if err != nil {
		return nil, err
	}
	for _, name := range packs {
		f, err := fsys.Open(path.Join("objects", "pack", "pack-"+name.String()+".idx"))
		if err != nil {
			return nil, err
		}
		idx := idxfile.NewMemoryIndex()
		err = idxfile.NewDecoder(f).Decode(idx)
		f.Close()
		if err != nil {
			return nil, err
		}
		p.packs = append(p.packs, idx)
	}
	return p, nil
}

// has tells whether the repository has h: through the objects read once
// while the index is held and the store is on disk, else through go-git.
// Called with r.mu held.
func (r *Repo) has(h plumbing.Hash) (bool, error) {
	st, ok := r.r.Storer.(*filesystem.Storage)
	if !ok || r.known == nil {
		return r.r.Storer.HasEncodedObject(h) == nil, nil
	}
	if r.present == nil {
		p, err := readPresent(st)
		if err != nil {
			return false, err
		}
		r.present = p
	}
	return r.present.has(h), nil
}
