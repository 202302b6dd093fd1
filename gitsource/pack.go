package gitsource

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-git/v5/plumbing/format/idxfile"
	"hash/crc32"
	"io"
	"path"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// packFanIn is how many packs of one level olmops merges into one pack of
// the next: a 1,000-commit run leaves at most a few dozen packs on the
// way, and every object is copied about log16(commits) times.
const packFanIn = 16

// ownPack is a pack olmops wrote while the index was held: only these
// are ever merged or deleted, never packs git or a fetch wrote.
type ownPack struct {
	name    plumbing.Hash // the pack's checksum, as in pack-<name>.pack
	level   int           // 0: one commit's objects; n+1: packFanIn packs of level n
	entries []packEntry
}

// packEntry is what a pack's index says of one object: a merge writes the
// merged pack's index from these instead of inflating every object again.
type packEntry struct {
	hash   plumbing.Hash
	offset uint64 // from the start of the pack
	crc    uint32 // of the entry's bytes, as git's index keeps it
}

// packing tells whether Commit writes its new objects as one pack: only
// while HoldIndex is in force, and only in a repository on disk. Loose
// objects cost a file each (about 65 for a cluster's plan commit): at
// 1,000 clusters those file creations and existence checks were most
// of planning's time. Called with r.mu held.
func (r *Repo) packing() bool {
	if r.indexHolds == 0 {
		return false
	}
	_, ok := r.r.Storer.(*filesystem.Storage)
	return ok
}

// writePack stores objs, none of which the repository has, as one pack.
// The pack is in place (see placePack) before it returns, so a ref may
// then point at them. Called with r.mu held.
func (r *Repo) writePack(objs []plumbing.EncodedObject) error {
	if len(objs) == 0 {
		return nil
	}
	// Built in memory: each entry's CRC is taken from its bytes, and the
	// pack is written with one system call.
	var buf bytes.Buffer
	err := writePackHeader(&buf, uint32(len(objs)))
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	entries := make([]packEntry, 0, len(objs))
	for _, o := range objs {
		if err != nil {
			break
		}
		start := buf.Len()
		err = writePackEntry(&buf, zw, o)
		entries = append(entries, packEntry{hash: o.Hash(), offset: uint64(start), crc: crc32.ChecksumIEEE(buf.Bytes()[start:])})
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	var p ownPack
	if err == nil {
		p, err = r.placePack(func(w io.Writer) (ownPack, error) {
			_, err := w.Write(buf.Bytes())
			return ownPack{name: plumbing.Hash(sum), entries: entries}, err
		})
	}
	if err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	r.packs = append(r.packs, p)
	return r.mergeLevels()
}

// placePack writes a pack through write into a temporary file, then its
// index from the entries write reports, and renames both into place,
// the index first (as git and go-git do). The index is olmops's own:
// go-git's pack writer would inflate and hash every object again, and
// write the index four bytes per system call. go-git is then told to
// list the packs again.
func (r *Repo) placePack(write func(io.Writer) (ownPack, error)) (ownPack, error) {
	st := r.r.Storer.(*filesystem.Storage)
	fsys := st.Filesystem()
	tmp, err := fsys.TempFile(path.Join("objects", "pack"), "tmp_pack_")
	if err != nil {
		return ownPack{}, err
	}
	p, err := write(tmp)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = placeIndex(fsys, tmp.Name(), p)
	}
	if err != nil {
		fsys.Remove(tmp.Name())
		return ownPack{}, err
	}
	st.Reindex()
	return p, nil
}

// zlibWriters are reused: a new one allocates its whole window.
//
// A commit's pack holds what git would write as loose objects, and git
// deflates loose objects at level 1 (core.looseCompression defaults to
// best speed; pack.compression to zlib's default, 6, for the packs gc
// and repack build). Go's level 1 deflated the ocp catalogs' files 2.5-4.7
// times faster than level 6, into 17% more bytes (3.21 against 2.74 MB);
// `git repack -a -d -F` recompresses when someone wants the bytes back.
var zlibWriters = sync.Pool{New: func() any {
	zw, err := zlib.NewWriterLevel(nil, zlib.BestSpeed)
	if err != nil {
		panic(err) // a constant level: unreachable
	}
	return zw
}}

func writePackHeader(w io.Writer, objects uint32) error {
	var hdr [12]byte
	copy(hdr[:], "PACK")
	binary.BigEndian.PutUint32(hdr[4:], 2)
	binary.BigEndian.PutUint32(hdr[8:], objects)
	_, err := w.Write(hdr[:])
	return err
}

// writePackEntry writes o whole (never as a delta), so that packs merge
// by concatenating their entries.
func writePackEntry(w io.Writer, zw *zlib.Writer, o plumbing.EncodedObject) error {
	size := uint64(o.Size())
	hdr := []byte{byte(o.Type())<<4 | byte(size&0x0f)}
	for size >>= 4; size > 0; size >>= 7 {
		hdr[len(hdr)-1] |= 0x80
		hdr = append(hdr, byte(size&0x7f))
	}
	if _, err := w.Write(hdr); err != nil {
		return err
	}
	rd, err := o.Reader()
	if err != nil {
		return err
	}
	defer rd.Close()
	zw.Reset(w)
	if _, err := io.Copy(zw, rd); err != nil {
		return err
	}
	return zw.Close()
}

// mergeLevels merges the newest packFanIn packs into one while they share
// a level, so the number of packs grows with the logarithm of the commits
// and finding an object stays cheap.
func (r *Repo) mergeLevels() error {
	for n := len(r.packs); n >= packFanIn; n = len(r.packs) {
		top := r.packs[n-packFanIn:]
		level := top[0].level
		for _, p := range top {
			if p.level != level {
				return nil
			}
		}
		if err := r.mergePacks(top, level+1); err != nil {
			return err
		}
	}
	return nil
}

// consolidatePacks merges every pack olmops wrote into one, as a held
// index is released: a planner run leaves one pack behind.
func (r *Repo) consolidatePacks() error {
	if len(r.packs) < 2 {
		return nil
	}
	return r.mergePacks(r.packs, r.packs[len(r.packs)-1].level+1)
}

// mergePacks writes the entries of ps, which are the last len(ps) of
// r.packs, as one pack by copying their bytes, then deletes them. The
// new pack is in place before any old one goes.
func (r *Repo) mergePacks(ps []ownPack, level int) error {
	st := r.r.Storer.(*filesystem.Storage)
	fsys := st.Filesystem()
	var n int
	for _, p := range ps {
		n += len(p.entries)
	}
	merged, err := r.placePack(func(w io.Writer) (ownPack, error) { return writeMerged(st, w, ps, n, level) })
	if err != nil {
		return fmt.Errorf("merge packs: %w", err)
	}
	old := append([]ownPack(nil), ps...)
	r.packs = append(r.packs[:len(r.packs)-len(ps)], merged)
	// The objects are in the merged pack now: a failure below leaves
	// copies behind, never a missing object.
	var errs []error
	for _, p := range old {
		base := path.Join("objects", "pack", "pack-"+p.name.String())
		errs = append(errs, fsys.Remove(base+".idx"), fsys.Remove(base+".pack"))
	}
	// placePack's re-listing holds: nothing reads through go-git until
	// r.mu is released, after the deletions.
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove merged packs: %w", err)
	}
	return nil
}

// writeMerged writes the pack of ps's entries to w.
func writeMerged(st *filesystem.Storage, w io.Writer, ps []ownPack, n, level int) (ownPack, error) {
	sum := sha1.New()
	out := io.MultiWriter(w, sum)
	if err := writePackHeader(out, uint32(n)); err != nil {
		return ownPack{}, err
	}
	merged := ownPack{level: level, entries: make([]packEntry, 0, n)}
	at := uint64(12)
	for _, p := range ps {
		size, err := copyEntries(st, p.name, out)
		if err != nil {
			return ownPack{}, err
		}
		for _, e := range p.entries {
			merged.entries = append(merged.entries, packEntry{hash: e.hash, offset: at + e.offset - 12, crc: e.crc})
		}
		at += uint64(size)
	}
	merged.name = plumbing.Hash(sum.Sum(nil))
	_, err := w.Write(merged.name[:])
	return merged, err
}

// placeIndex writes p's index and renames it, then the pack at tmp, into
// place.
func placeIndex(fsys billy.Filesystem, tmp string, p ownPack) error {
	var iw idxfile.Writer
	for _, e := range p.entries {
		iw.Add(e.hash, e.offset, e.crc)
	}
	if err := iw.OnFooter(p.name); err != nil {
		return err
	}
	idx, err := iw.Index()
	if err != nil {
		return err
	}
	base := path.Join("objects", "pack", "pack-"+p.name.String())
	f, err := fsys.TempFile(path.Join("objects", "pack"), "tmp_idx_")
	if err != nil {
		return err
	}
	// idxfile's encoder writes each hash, CRC and offset on its own:
	// unbuffered, three system calls per object.
	bw := bufio.NewWriterSize(f, 64<<10)
	_, err = idxfile.NewEncoder(bw).Encode(idx)
	if err == nil {
		err = bw.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsys.Rename(f.Name(), base+".idx")
	}
	if err != nil {
		fsys.Remove(f.Name())
		return err
	}
	return fsys.Rename(tmp, base+".pack")
}

// copyEntries copies the object entries of the pack name, between its
// 12-byte header and its 20-byte checksum, to w, and says how many bytes.
func copyEntries(st *filesystem.Storage, name plumbing.Hash, w io.Writer) (int64, error) {
	f, err := st.Filesystem().Open(path.Join("objects", "pack", "pack-"+name.String()+".pack"))
	if err != nil {
		return 0, err
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, err
	}
	if size < 32 {
		return 0, fmt.Errorf("pack %s: truncated", name)
	}
	return io.Copy(w, io.NewSectionReader(f, 12, size-32))
}
