package gitsource

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// ErrDirtyWorktree reports a commit onto the checked-out branch of a
// worktree whose files or index differ from the branch where the commit
// changes them: olmops would have to overwrite someone's work.
var ErrDirtyWorktree = errors.New("the worktree has uncommitted changes where olmops writes: commit or stash them first")

// moveRef moves ref from old to h. When ref is the branch checked out in
// the repository's worktree, the files and the index the commit changes
// follow (as git does when a branch fast-forwards), so `git status` stays
// clean. Only the changed paths are looked at, through the index in
// memory, so a large repository costs no more than a small one; the index
// is written at once unless HoldIndex defers it. guide, when not nil, is
// the edit that made h's tree from old's: only the folders it names are
// compared. Called with r.mu held.
func (r *Repo) moveRef(ref plumbing.ReferenceName, old *plumbing.Reference, h plumbing.Hash, guide *edit) error {
	wt, ok := r.checkedOut(ref)
	if !ok || old == nil {
		return r.r.Storer.CheckAndSetReference(plumbing.NewHashReference(ref, h), old)
	}
	changes, err := r.commitChanges(old.Hash(), h, guide)
	if err != nil {
		return err
	}
	wi, err := r.loadIndex()
	if err != nil {
		return err
	}
	wf := newWorktreeFiles(wt.Filesystem)
	for _, c := range changes {
		if err := checkClean(wf, wi, c); err != nil {
			return err
		}
	}
	if err := r.r.Storer.CheckAndSetReference(plumbing.NewHashReference(ref, h), old); err != nil {
		return err
	}
	if err := r.checkout(wf, wi, changes, guide); err != nil {
		return fmt.Errorf("update worktree: %w", err)
	}
	return r.flushIndex()
}

// commitChanges lists the files that differ between two commits' trees.
func (r *Repo) commitChanges(from, to plumbing.Hash, guide *edit) ([]pathChange, error) {
	a, err := r.commitTree(from)
	if err != nil {
		return nil, err
	}
	b, err := r.commitTree(to)
	if err != nil {
		return nil, err
	}
	return r.diffTrees(a, b, guide)
}

// checkClean fails unless the index and the file at c's path are what the
// old commit has there.
func checkClean(wf *worktreeFiles, wi *worktreeIndex, c pathChange) error {
	name := c.name
	added := c.from.Hash.IsZero()
	if err := wf.noLinks(name); err != nil {
		return err
	}
	dirty := fmt.Errorf("%w (%s)", ErrDirtyWorktree, name)
	e, ok := wi.entry(name)
	switch {
	case added && wi.byPath[name] != nil, !added && (!ok || e.Hash != c.from.Hash):
		return dirty
	}
	data, err := wf.read(name)
	switch {
	case added && errors.Is(err, os.ErrNotExist):
		return nil
	case added || err != nil:
		return dirty
	}
	if plumbing.ComputeHash(plumbing.BlobObject, data) != c.from.Hash {
		return dirty
	}
	return nil
}

// checkout writes the changes' new sides into the worktree and the
// index: removals first, then the files, several at a time (creating a
// file is the kernel's work, and a fleet's commit creates about 160). A
// file is recorded in the index only once it is written, so when some
// writes fail the index still says what is on disk. guide, when not nil,
// has the new content as the commit's request had it, so the blobs just
// written need not be read back.
func (r *Repo) checkout(wf *worktreeFiles, wi *worktreeIndex, changes []pathChange, guide *edit) error {
	writes := make([]fileWrite, 0, len(changes))
	for _, c := range changes {
		if c.to.Hash.IsZero() {
			wi.remove(c.name)
			if err := wf.fsys.Remove(c.name); err != nil && !errors.Is(err, os.ErrNotExist) {
				return err
			}
			continue
		}
		data := guide.file(c.name)
		if data == nil {
			var err error
			if data, err = r.readBlob(c.to.Hash); err != nil {
				return err
			}
		}
		perm := os.FileMode(0o644)
		if c.to.Mode == filemode.Executable {
			perm = 0o755
		}
		writes = append(writes, fileWrite{name: c.name, data: data, perm: perm, entry: c.to})
	}
	wf.writeAll(writes)
	var errs []error
	for _, w := range writes {
		if w.err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", w.name, w.err))
			continue
		}
		wi.set(w.name, func(e *index.Entry) {
			e.Hash, e.Mode, e.Size, e.ModifiedAt = w.entry.Hash, w.entry.Mode, uint32(w.info.Size()), w.info.ModTime()
		})
	}
	return errors.Join(errs...)
}

func (r *Repo) readBlob(h plumbing.Hash) ([]byte, error) {
	blob, err := r.r.BlobObject(h)
	if err != nil {
		return nil, err
	}
	rd, err := blob.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	return io.ReadAll(rd)
}

func readFile(fsys billy.Filesystem, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var buf bytes.Buffer
	_, err = io.Copy(&buf, f)
	return buf.Bytes(), err
}

// checkedOut returns the worktree when ref is the branch HEAD names in a
// non-bare repository opened by Path.
func (r *Repo) checkedOut(ref plumbing.ReferenceName) (*git.Worktree, bool) {
	if r.mirror {
		return nil, false
	}
	head, err := r.r.Storer.Reference(plumbing.HEAD)
	if err != nil || head.Type() != plumbing.SymbolicReference || head.Target() != ref {
		return nil, false
	}
	wt, err := r.r.Worktree()
	if err != nil { // bare
		return nil, false
	}
	return wt, true
}
