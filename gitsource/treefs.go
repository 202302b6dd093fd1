package gitsource

import (
	"bytes"
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// errEscapes is what os.Root says about a symlink that leaves it; the
// catalog loader words it for people.
var errEscapes = errors.New("path escapes from parent")

// maxSymlinks bounds the symlinks followed while resolving one path, as the
// kernel's ELOOP does.
const maxSymlinks = 40

// treeStore reads the trees and blobs of one snapshot and keeps the trees
// it decoded.
type treeStore struct {
	repo    *Repo
	modTime time.Time

	mu    sync.Mutex
	trees map[plumbing.Hash]*dirNode
}

// dirNode is one decoded git tree, its entries sorted by name.
type dirNode struct {
	hash    plumbing.Hash
	entries []entry
	index   map[string]int
}

// entry is one name in a tree, with its io/fs mode.
type entry struct {
	name string
	mode fs.FileMode
	hash plumbing.Hash
}

func (st *treeStore) dir(h plumbing.Hash) (*dirNode, error) {
	st.mu.Lock()
	d, ok := st.trees[h]
	st.mu.Unlock()
	if ok {
		return d, nil
	}
	st.repo.mu.Lock()
	t, err := object.GetTree(st.repo.r.Storer, h)
	st.repo.mu.Unlock()
	if err != nil {
		return nil, err
	}
	d = &dirNode{hash: h, index: make(map[string]int, len(t.Entries))}
	for _, te := range t.Entries {
		mode, ok := fsMode(te.Mode)
		if !ok {
			continue // submodules and unknown modes
		}
		d.entries = append(d.entries, entry{name: te.Name, mode: mode, hash: te.Hash})
	}
	sort.Slice(d.entries, func(i, j int) bool { return d.entries[i].name < d.entries[j].name })
	for i, e := range d.entries {
		d.index[e.name] = i
	}
	st.mu.Lock()
	st.trees[h] = d
	st.mu.Unlock()
	return d, nil
}

func fsMode(m filemode.FileMode) (fs.FileMode, bool) {
	switch m {
	case filemode.Dir:
		return fs.ModeDir | 0o755, true
	case filemode.Regular, filemode.Deprecated:
		return 0o644, true
	case filemode.Executable:
		return 0o755, true
	case filemode.Symlink:
		return fs.ModeSymlink | 0o777, true
	}
	return 0, false
}

func (st *treeStore) blob(h plumbing.Hash) ([]byte, error) {
	st.repo.mu.Lock()
	defer st.repo.mu.Unlock()
	obj, err := st.repo.r.Storer.EncodedObject(plumbing.BlobObject, h)
	if err != nil {
		return nil, err
	}
	rd, err := obj.Reader()
	if err != nil {
		return nil, err
	}
	defer rd.Close()
	buf := bytes.NewBuffer(make([]byte, 0, obj.Size()))
	_, err = buf.ReadFrom(rd)
	return buf.Bytes(), err
}

func (st *treeStore) size(e entry) int64 {
	if e.mode.IsDir() {
		return 0
	}
	st.repo.mu.Lock()
	defer st.repo.mu.Unlock()
	n, err := st.repo.r.Storer.EncodedObjectSize(e.hash)
	if err != nil {
		return 0
	}
	return n
}

// treeFS is the io/fs view of a tree; see Snapshot.FS.
type treeFS struct {
	store *treeStore
	root  *dirNode
}

var (
	_ fs.ReadDirFS  = (*treeFS)(nil)
	_ fs.ReadFileFS = (*treeFS)(nil)
	_ fs.StatFS     = (*treeFS)(nil)
	_ fs.SubFS      = (*treeFS)(nil)
)

// resolve finds name, following symlinks in every element and, when
// follow is set, in the last one.
func (f *treeFS) resolve(op, name string, follow bool) (entry, error) {
	if !fs.ValidPath(name) {
		return entry{}, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	p := name
	for hops := 0; ; hops++ {
		if hops > maxSymlinks {
			return entry{}, &fs.PathError{Op: op, Path: name, Err: errors.New("too many levels of symbolic links")}
		}
		e, next, err := f.walk(p, follow)
		if err != nil {
			return entry{}, &fs.PathError{Op: op, Path: name, Err: err}
		}
		if next == "" {
			return e, nil
		}
		p = next
	}
}

// walk looks p up element by element. It returns the entry found, or the
// path to look up instead when it meets a symlink to follow.
func (f *treeFS) walk(p string, follow bool) (entry, string, error) {
	cur := entry{name: ".", mode: fs.ModeDir | 0o755, hash: f.root.hash}
	if p == "." {
		return cur, "", nil
	}
	dir := f.root
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if !cur.mode.IsDir() {
			return entry{}, "", fs.ErrNotExist // a file in the middle of the path
		}
		if i > 0 {
			var err error
			if dir, err = f.store.dir(cur.hash); err != nil {
				return entry{}, "", err
			}
		}
		j, ok := dir.index[part]
		if !ok {
			return entry{}, "", fs.ErrNotExist
		}
		cur = dir.entries[j]
		last := i == len(parts)-1
		if cur.mode&fs.ModeSymlink == 0 || last && !follow {
			continue
		}
		target, err := f.store.blob(cur.hash)
		if err != nil {
			return entry{}, "", err
		}
		t := string(target)
		if path.IsAbs(t) {
			return entry{}, "", errEscapes
		}
		next := path.Join(append([]string{path.Join(parts[:i]...), t}, parts[i+1:]...)...)
		if next == ".." || strings.HasPrefix(next, "../") {
			return entry{}, "", errEscapes
		}
		return entry{}, next, nil
	}
	return cur, "", nil
}

func (f *treeFS) info(name string, e entry) *fileInfo {
	return &fileInfo{name: path.Base(name), size: f.store.size(e), mode: e.mode, modTime: f.store.modTime, hash: e.hash}
}

// Open opens name, following symlinks that stay inside the FS.
func (f *treeFS) Open(name string) (fs.File, error) {
	e, err := f.resolve("open", name, true)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		d, err := f.store.dir(e.hash)
		if err != nil {
			return nil, &fs.PathError{Op: "open", Path: name, Err: err}
		}
		return &dirFile{fsys: f, info: f.info(name, e), dir: d}, nil
	}
	return &blobFile{store: f.store, name: name, info: f.info(name, e)}, nil
}

// Stat describes name, following symlinks.
func (f *treeFS) Stat(name string) (fs.FileInfo, error) {
	e, err := f.resolve("stat", name, true)
	if err != nil {
		return nil, err
	}
	return f.info(name, e), nil
}

// ReadFile reads the file name, following symlinks.
func (f *treeFS) ReadFile(name string) ([]byte, error) {
	e, err := f.resolve("read", name, true)
	if err != nil {
		return nil, err
	}
	if e.mode.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: name, Err: errors.New("is a directory")}
	}
	data, err := f.store.blob(e.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return data, nil
}

// ReadDir lists the folder name sorted by name; symlinks are listed as
// such, not followed.
func (f *treeFS) ReadDir(name string) ([]fs.DirEntry, error) {
	e, err := f.resolve("readdir", name, true)
	if err != nil {
		return nil, err
	}
	if !e.mode.IsDir() {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: errors.New("not a directory")}
	}
	d, err := f.store.dir(e.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: err}
	}
	return f.dirEntries(d.entries), nil
}

func (f *treeFS) dirEntries(es []entry) []fs.DirEntry {
	out := make([]fs.DirEntry, len(es))
	for i, e := range es {
		out[i] = &dirEntry{fsys: f, e: e}
	}
	return out
}

// Sub is the FS of the folder dir; symlinks in it cannot leave it.
func (f *treeFS) Sub(dir string) (fs.FS, error) {
	e, err := f.resolve("sub", dir, true)
	if err != nil {
		return nil, err
	}
	if !e.mode.IsDir() {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: errors.New("not a directory")}
	}
	d, err := f.store.dir(e.hash)
	if err != nil {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: err}
	}
	return &treeFS{store: f.store, root: d}, nil
}

type fileInfo struct {
	name    string
	size    int64
	mode    fs.FileMode
	modTime time.Time
	hash    plumbing.Hash
}

func (i *fileInfo) Name() string       { return i.name }
func (i *fileInfo) Size() int64        { return i.size }
func (i *fileInfo) Mode() fs.FileMode  { return i.mode }
func (i *fileInfo) ModTime() time.Time { return i.modTime }
func (i *fileInfo) IsDir() bool        { return i.mode.IsDir() }

// Sys is the git object hash (a plumbing.Hash).
func (i *fileInfo) Sys() any { return i.hash }

type dirEntry struct {
	fsys *treeFS
	e    entry
}

func (d *dirEntry) Name() string               { return d.e.name }
func (d *dirEntry) IsDir() bool                { return d.e.mode.IsDir() }
func (d *dirEntry) Type() fs.FileMode          { return d.e.mode.Type() }
func (d *dirEntry) Info() (fs.FileInfo, error) { return d.fsys.info(d.e.name, d.e), nil }
func (d *dirEntry) String() string             { return fs.FormatDirEntry(d) }

// blobFile is an open file; its content is read on the first Read.
type blobFile struct {
	store *treeStore
	name  string
	info  *fileInfo
	r     *bytes.Reader
}

func (b *blobFile) Stat() (fs.FileInfo, error) { return b.info, nil }
func (b *blobFile) Close() error               { return nil }

func (b *blobFile) load() error {
	if b.r != nil {
		return nil
	}
	data, err := b.store.blob(b.info.hash)
	if err != nil {
		return &fs.PathError{Op: "read", Path: b.name, Err: err}
	}
	b.r = bytes.NewReader(data)
	return nil
}

func (b *blobFile) Read(p []byte) (int, error) {
	if err := b.load(); err != nil {
		return 0, err
	}
	return b.r.Read(p)
}

func (b *blobFile) ReadAt(p []byte, off int64) (int, error) {
	if err := b.load(); err != nil {
		return 0, err
	}
	return b.r.ReadAt(p, off)
}

func (b *blobFile) Seek(off int64, whence int) (int64, error) {
	if err := b.load(); err != nil {
		return 0, err
	}
	return b.r.Seek(off, whence)
}

// dirFile is an open folder.
type dirFile struct {
	fsys *treeFS
	info *fileInfo
	dir  *dirNode
	off  int
}

func (d *dirFile) Stat() (fs.FileInfo, error) { return d.info, nil }
func (d *dirFile) Close() error               { return nil }

func (d *dirFile) Read([]byte) (int, error) {
	return 0, &fs.PathError{Op: "read", Path: d.info.name, Err: errors.New("is a directory")}
}

func (d *dirFile) ReadDir(n int) ([]fs.DirEntry, error) {
	rest := d.dir.entries[d.off:]
	if n > 0 && len(rest) == 0 {
		return nil, io.EOF
	}
	if n > 0 && n < len(rest) {
		rest = rest[:n]
	}
	d.off += len(rest)
	return d.fsys.dirEntries(rest), nil
}
