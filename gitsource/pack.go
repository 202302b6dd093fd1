package gitsource

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"path"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
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
	objects uint32
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
// The pack is in place (its index first, then the pack, as go-git's
// PackWriter renames them) before it returns, so a ref may then point at
// them. Called with r.mu held.
func (r *Repo) writePack(objs []plumbing.EncodedObject) error {
	if len(objs) == 0 {
		return nil
	}
	// Built in memory and written at once: go-git's PackWriter indexes
	// the pack as it arrives, waking its reader on every write.
	var buf bytes.Buffer
	err := writePackHeader(&buf, uint32(len(objs)))
	zw := zlibWriters.Get().(*zlib.Writer)
	defer zlibWriters.Put(zw)
	for _, o := range objs {
		if err != nil {
			break
		}
		err = writePackEntry(&buf, zw, o)
	}
	sum := sha1.Sum(buf.Bytes())
	buf.Write(sum[:])
	if err == nil {
		err = r.savePack(&buf)
	}
	if err != nil {
		return fmt.Errorf("write pack: %w", err)
	}
	r.packs = append(r.packs, ownPack{name: plumbing.Hash(sum), objects: uint32(len(objs))})
	return r.mergeLevels()
}

// savePack hands a whole pack to go-git, which indexes it, writes its
// index and moves both into objects/pack.
func (r *Repo) savePack(pack io.Reader) error {
	pw, err := r.r.Storer.(storer.PackfileWriter).PackfileWriter()
	if err != nil {
		return err
	}
	_, err = io.CopyBuffer(pw, pack, make([]byte, 1<<20))
	if cerr := pw.Close(); err == nil {
		err = cerr
	}
	return err
}

// zlibWriters are reused: a new one allocates its whole window.
var zlibWriters = sync.Pool{New: func() any { return zlib.NewWriter(nil) }}

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
// r.packs, as one pack by copying their bytes, then deletes them. Every
// object is in the new pack, indexed, before any old pack goes.
func (r *Repo) mergePacks(ps []ownPack, level int) error {
	st := r.r.Storer.(*filesystem.Storage)
	var total uint32
	for _, p := range ps {
		total += p.objects
	}
	done := make(chan plumbing.Hash, 1)
	// The merged pack streams through a pipe: it can be most of the run's
	// objects, too many to hold twice in memory.
	pr, pw := io.Pipe()
	go func() {
		sum := sha1.New()
		out := io.MultiWriter(pw, sum)
		err := writePackHeader(out, total)
		for _, p := range ps {
			if err != nil {
				break
			}
			err = copyEntries(st, p.name, out)
		}
		if err == nil {
			_, err = pw.Write(sum.Sum(nil))
		}
		name := plumbing.Hash(sum.Sum(nil))
		pw.CloseWithError(err)
		done <- name
	}()
	err := r.savePack(pr)
	pr.Close()
	name := <-done
	if err != nil {
		return fmt.Errorf("merge packs: %w", err)
	}
	merged := ownPack{name: name, level: level, objects: total}
	old := append([]ownPack(nil), ps...)
	r.packs = append(r.packs[:len(r.packs)-len(ps)], merged)
	// The objects are in the merged pack now: a failure below leaves
	// copies behind, never a missing object.
	var errs []error
	for _, p := range old {
		base := path.Join("objects", "pack", "pack-"+p.name.String())
		errs = append(errs, st.Filesystem().Remove(base+".idx"), st.Filesystem().Remove(base+".pack"))
	}
	st.Reindex() // go-git still lists the deleted packs
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("remove merged packs: %w", err)
	}
	return nil
}

// copyEntries copies the object entries of the pack name, between its
// 12-byte header and its 20-byte checksum, to w.
func copyEntries(st *filesystem.Storage, name plumbing.Hash, w io.Writer) error {
	f, err := st.Filesystem().Open(path.Join("objects", "pack", "pack-"+name.String()+".pack"))
	if err != nil {
		return err
	}
	defer f.Close()
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if size < 32 {
		return fmt.Errorf("pack %s: truncated", name)
	}
	_, err = io.Copy(w, io.NewSectionReader(f, 12, size-32))
	return err
}
