package gitsource

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/helper/chroot"
	"github.com/go-git/go-billy/v5/helper/polyfill"
	"github.com/go-git/go-billy/v5/osfs"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// worktreeFiles checks and writes one commit's files in a checked-out
// worktree. A fleet's plan commit adds about 160 files in 40 new folders:
// through billy each new file cost a failed open (is it untracked?), a
// stat of its folder (MkdirAll in OpenFile) and a stat after writing,
// each a path lookup beside the file's creation. Here a folder found
// missing before the commit's writes answers for every file below it,
// a new folder costs one mkdir, the files are written by a few
// goroutines, and the written file's size and time come from the open
// file.
type worktreeFiles struct {
	fsys billy.Filesystem
	// root is the worktree's folder on disk when fsys is the OS's own
	// (go-git's default), else "" and every file goes through fsys.
	root string
	// absent are folders missing before this commit's writes; real are
	// folders found on disk that are not symbolic links.
	absent, real map[string]bool
}

func newWorktreeFiles(fsys billy.Filesystem) *worktreeFiles {
	wf := &worktreeFiles{fsys: fsys, absent: map[string]bool{}, real: map[string]bool{}}
	if c, ok := fsys.(*chroot.ChrootHelper); ok {
		under := c.Underlying()
		if p, ok := under.(*polyfill.Polyfill); ok { // chroot.New wraps osfs's ChrootOS in one
			under = p.Underlying()
		}
		if _, ok := under.(*osfs.ChrootOS); ok {
			wf.root = c.Root()
		}
	}
	return wf
}

// missing tells whether the folder dir (slash path, "." for the root) was
// found absent, by dir's own stat or one of its parents'. Anything but a
// clear "does not exist" (a file in the way, a permission error) answers
// false, and the caller looks at the file itself.
func (wf *worktreeFiles) missing(dir string) bool {
	for d := dir; d != "." && d != "/"; d = path.Dir(d) {
		if wf.absent[d] {
			return true
		}
	}
	if dir == "." {
		return false
	}
	if _, err := wf.fsys.Stat(dir); !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	wf.absent[dir] = true
	wf.missing(path.Dir(dir)) // mark the highest missing folder: its siblings' files ask once
	return true
}

// noLinks fails when name, or a folder on its way, is a symbolic link
// on disk: writing or removing there would touch whatever the link points
// at, outside the worktree. git's checkout refuses the same ("beyond a
// symbolic link"). A link the branch itself holds is refused earlier,
// from the tree; this catches one made beside it. Called for every change
// before the branch moves, so nothing is written when it fails.
func (wf *worktreeFiles) noLinks(name string) error {
	parts := strings.Split(name, "/")
	for i := range parts {
		p := strings.Join(parts[:i+1], "/")
		if wf.real[p] {
			continue
		}
		if wf.absent[p] {
			return nil // nothing below a missing folder exists either
		}
		fi, err := wf.fsys.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			if i < len(parts)-1 {
				wf.absent[p] = true
			}
			return nil
		case err != nil:
			return err
		case fi.Mode()&fs.ModeSymlink != 0:
			return fmt.Errorf("%w (%s is a symbolic link: olmops does not write through one)", ErrDirtyWorktree, p)
		case i == len(parts)-1:
			return nil
		case !fi.IsDir():
			return fmt.Errorf("%w (%s is a file where a folder goes)", ErrDirtyWorktree, p)
		}
		wf.real[p] = true
	}
	return nil
}

// read reads the file at name, or reports fs.ErrNotExist without
// opening it when its folder is missing.
func (wf *worktreeFiles) read(name string) ([]byte, error) {
	if wf.missing(path.Dir(name)) {
		return nil, fs.ErrNotExist
	}
	return readFile(wf.fsys, name)
}

// fileWrite is one file of a commit to write into the worktree, and how
// the write went: info is what the index records of the written file.
type fileWrite struct {
	name  string
	data  []byte
	perm  os.FileMode
	entry object.TreeEntry
	info  os.FileInfo
	err   error
}

// writeAll creates or truncates every file of ws with its data and sets
// each one's info or err. On the OS's own filesystem a few goroutines
// write at once, each taking a whole folder: it makes the folder, then
// writes the folder's files. Through another billy filesystem the files
// are written one by one.
func (wf *worktreeFiles) writeAll(ws []fileWrite) {
	for i := range ws {
		if !fs.ValidPath(ws[i].name) || strings.Contains(ws[i].name, `\`) {
			ws[i].err = fmt.Errorf("invalid path %q in the commit's tree", ws[i].name)
		}
	}
	if wf.root == "" {
		for i := range ws {
			if ws[i].err == nil {
				ws[i].info, ws[i].err = wf.writeBilly(ws[i].name, ws[i].data, ws[i].perm)
			}
		}
		return
	}
	var folders [][]fileWrite // adjacent files of one folder (ws is in path order) are one task
	for i := 0; i < len(ws); {
		j := i + 1
		for j < len(ws) && path.Dir(ws[j].name) == path.Dir(ws[i].name) {
			j++
		}
		folders = append(folders, ws[i:j])
		i = j
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(len(folders), writers) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(folders); i = int(next.Add(1) - 1) {
				wf.writeFolder(folders[i])
			}
		})
	}
	wg.Wait()
}

// writers is how many folders writeAll writes at once: enough to keep two
// cores busy in the kernel while others wait on it.
const writers = 4

// writeFolder writes files, which share a folder. Safe for concurrent use:
// another goroutine may be making the same parents.
func (wf *worktreeFiles) writeFolder(files []fileWrite) {
	dir := path.Dir(files[0].name)
	err := wf.mkdir(dir)
	for i := range files {
		switch w := &files[i]; {
		case w.err != nil:
		case err != nil:
			w.err = err
		default:
			w.info, w.err = wf.write(w.name, w.data, w.perm)
		}
	}
}

// mkdir makes the folder dir (a slash path) and its parents. A folder
// whose parent exists, the common case, costs one system call.
func (wf *worktreeFiles) mkdir(dir string) error {
	if dir == "." {
		return nil
	}
	full := filepath.Join(wf.root, filepath.FromSlash(dir))
	err := os.Mkdir(full, 0o755)
	if err == nil {
		return nil
	}
	// A missing parent, or something already there: MkdirAll makes the
	// parents, passes a folder (one made meanwhile included) and fails
	// on a file.
	return os.MkdirAll(full, 0o755)
}

// write creates or truncates name, whose folder exists, with data and
// returns what the index records of it. Safe for concurrent use.
func (wf *worktreeFiles) write(name string, data []byte, perm os.FileMode) (os.FileInfo, error) {
	return writeFile(filepath.Join(wf.root, filepath.FromSlash(name)), data, perm)
}

func (wf *worktreeFiles) writeBilly(name string, data []byte, perm os.FileMode) (os.FileInfo, error) {
	f, err := wf.fsys.OpenFile(name, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, perm)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Close(); err != nil {
		return nil, err
	}
	return wf.fsys.Stat(name)
}
