package oci

import (
	"archive/tar"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

type entryKind uint8

const (
	kindNone entryKind = iota
	kindDir
	kindFile
	kindLink
)

// Whiteout markers of the OCI layer format.
const (
	whiteoutPrefix = ".wh."
	whiteoutOpaque = ".wh..wh..opq"
)

// unpacker writes the entries of an image's layers below root. Paths are
// slash-separated and relative to the unpacked directory (prefix in the
// image); "" is that directory itself.
type unpacker struct {
	root      *os.Root
	prefix    string
	maxBytes  int64
	bytesLeft int64
	filesLeft int
	// kinds is every path written so far and what it is.
	kinds map[string]entryKind
	// current holds the paths the layer being applied wrote, and their
	// parents: whiteouts remove only what lower layers wrote.
	current map[string]bool
	// sawRoot says the image has the prefix directory.
	sawRoot bool
}

func newUnpacker(root *os.Root, prefix string, maxBytes int64, maxFiles int) *unpacker {
	return &unpacker{root: root, prefix: prefix, maxBytes: maxBytes, bytesLeft: maxBytes, filesLeft: maxFiles,
		kinds: map[string]entryKind{}, sawRoot: prefix == ""}
}

// imagePath checks and cleans an entry name: "" for the image root.
func imagePath(name string) (string, error) {
	if strings.HasPrefix(name, "/") {
		return "", unsafeEntry(name, "has an absolute path")
	}
	if slices.Contains(strings.Split(name, "/"), "..") {
		return "", unsafeEntry(name, "has a .. path")
	}
	p := path.Clean(name)
	if p == "." {
		p = ""
	}
	return p, nil
}

// rel maps an image path to a path below the unpacked directory; ok is
// false for paths outside it.
func (u *unpacker) rel(p string) (string, bool) {
	switch {
	case u.prefix == "":
		return p, true
	case p == u.prefix:
		return "", true
	case strings.HasPrefix(p, u.prefix+"/"):
		return p[len(u.prefix)+1:], true
	}
	return "", false
}

// covers says whether image path p is the unpacked directory or one of its
// parents.
func (u *unpacker) covers(p string) bool {
	return p == "" || u.prefix == p || strings.HasPrefix(u.prefix, p+"/")
}

func (u *unpacker) entry(hdr *tar.Header, r io.Reader) error {
	p, err := imagePath(hdr.Name)
	if err != nil {
		return err
	}
	base, dir := path.Base(p), path.Dir(p)
	if dir == "." {
		dir = ""
	}
	switch {
	case base == whiteoutOpaque:
		return u.whiteout(dir, false)
	case strings.HasPrefix(base, whiteoutPrefix):
		return u.whiteout(path.Join(dir, base[len(whiteoutPrefix):]), true)
	}
	rel, ok := u.rel(p)
	if !ok || hdr.Typeflag == tar.TypeXGlobalHeader {
		return nil
	}
	u.sawRoot = true
	if rel == "" {
		return nil
	}
	switch hdr.Typeflag {
	case tar.TypeDir, tar.TypeReg, tar.TypeSymlink, tar.TypeLink:
	case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
		return unsafeEntry(hdr.Name, "is a device file")
	default:
		return unsafeEntry(hdr.Name, "has an unsupported type "+strconv.QuoteRune(rune(hdr.Typeflag)))
	}
	if err := u.prepare(hdr.Name, rel, hdr.Typeflag == tar.TypeDir); err != nil {
		return err
	}
	switch hdr.Typeflag {
	case tar.TypeDir:
		if u.kinds[rel] != kindDir {
			if err := u.root.Mkdir(rel, 0o700); err != nil {
				return err
			}
		}
		u.wrote(rel, kindDir)
		return nil
	case tar.TypeReg:
		return u.file(rel, hdr, r)
	case tar.TypeSymlink:
		return u.symlink(hdr, p, rel)
	}
	return u.hardlink(hdr, rel)
}

// prepare checks the budget and the parents of rel, creates missing
// parents, and removes what rel replaces (everything but a directory
// written again as a directory).
func (u *unpacker) prepare(name, rel string, isDir bool) error {
	if err := u.count(); err != nil {
		return err
	}
	parent := ""
	for _, part := range strings.Split(path.Dir(rel), "/") {
		if part == "." {
			break
		}
		parent = path.Join(parent, part)
		switch u.kinds[parent] {
		case kindLink:
			// The link's target would decide where the entry lands.
			return unsafeEntry(name, "is below a symlink")
		case kindFile:
			return unsafeEntry(name, "is below a file")
		case kindNone:
			if err := u.count(); err != nil {
				return err
			}
			if err := u.root.Mkdir(parent, 0o700); err != nil {
				return err
			}
			u.wrote(parent, kindDir)
		}
	}
	if k := u.kinds[rel]; k != kindNone && !(k == kindDir && isDir) {
		return u.remove(rel, true, false)
	}
	return nil
}

// count takes one entry from the file budget.
func (u *unpacker) count() error {
	if u.filesLeft--; u.filesLeft < 0 {
		return reasonf(ErrTooLarge, "more than the allowed number of files")
	}
	return nil
}

func (u *unpacker) file(rel string, hdr *tar.Header, r io.Reader) error {
	mode := fs.FileMode(0o600)
	if hdr.Mode&0o111 != 0 {
		mode = 0o700
	}
	f, err := u.root.OpenFile(rel, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	u.wrote(rel, kindFile)
	_, err = io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// symlink keeps links that stay inside the unpacked directory, rewritten
// relative so they resolve on disk as they would in the image.
func (u *unpacker) symlink(hdr *tar.Header, p, rel string) error {
	t := hdr.Linkname
	if t == "" {
		return unsafeEntry(hdr.Name, "is a symlink to nothing")
	}
	var target string
	if strings.HasPrefix(t, "/") {
		// Absolute targets resolve from the image root, never above it.
		target = strings.TrimPrefix(path.Clean(t), "/")
	} else {
		target = path.Join(path.Dir(p), t)
		if target == ".." || strings.HasPrefix(target, "../") {
			return unsafeEntry(hdr.Name, "is a symlink out of the image root")
		}
		if target == "." {
			target = ""
		}
	}
	trel, ok := u.rel(target)
	if !ok {
		return unsafeEntry(hdr.Name, "is a symlink out of the unpacked root")
	}
	link, err := filepath.Rel(filepath.FromSlash(path.Dir(rel)), filepath.FromSlash(cmpOr(trel, ".")))
	if err != nil {
		return unsafeEntry(hdr.Name, "has a symlink target that cannot be made relative")
	}
	if err := u.root.Symlink(link, rel); err != nil {
		return err
	}
	u.wrote(rel, kindLink)
	return nil
}

// hardlink links to a regular file already unpacked.
func (u *unpacker) hardlink(hdr *tar.Header, rel string) error {
	name := strings.TrimPrefix(hdr.Linkname, "/")
	target, err := imagePath(name)
	if err != nil {
		return unsafeEntry(hdr.Name, "is a hardlink out of the image root")
	}
	trel, ok := u.rel(target)
	if !ok || u.kinds[trel] != kindFile {
		return unsafeEntry(hdr.Name, "is a hardlink to no file of the unpacked root")
	}
	if err := u.root.Link(trel, rel); err != nil {
		return err
	}
	u.wrote(rel, kindFile)
	return nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// wrote records rel and marks it and its parents as the current layer's.
func (u *unpacker) wrote(rel string, k entryKind) {
	u.kinds[rel] = k
	for p := rel; p != "." && p != ""; p = path.Dir(p) {
		if u.current[p] {
			break
		}
		u.current[p] = true
	}
}

// whiteout applies a whiteout of image path p: the entry itself (self) or,
// for an opaque marker, the contents of directory p.
func (u *unpacker) whiteout(p string, self bool) error {
	if rel, ok := u.rel(p); ok && (rel != "" || !self) {
		return u.remove(rel, self, true)
	}
	if u.covers(p) {
		// The whole unpacked directory goes.
		return u.remove("", false, true)
	}
	return nil
}

// remove deletes rel (when self) and everything below it, deepest first.
// lowerOnly keeps what the current layer wrote, as whiteouts must.
func (u *unpacker) remove(rel string, self, lowerOnly bool) error {
	var gone []string
	for k := range u.kinds {
		below := rel == "" || strings.HasPrefix(k, rel+"/")
		if !(below || (self && k == rel)) || (lowerOnly && u.current[k]) {
			continue
		}
		gone = append(gone, k)
	}
	// Deeper paths sort after their parents; remove children first.
	slices.Sort(gone)
	for _, k := range slices.Backward(gone) {
		if err := u.root.Remove(k); err != nil && !os.IsNotExist(err) {
			return err
		}
		delete(u.kinds, k)
	}
	return nil
}
