package gitsource

import (
	"fmt"
	"io"
	"path"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// withPackCap returns r seen through a storage whose pack writer fails
// the write that takes the fetched pack past b's limit. It caps fetches
// over every transport, SSH and git:// included, whose bytes the HTTP
// transports never see: go-git streams a fetched pack into the storage's
// pack writer, so the pack is stopped as it arrives, before it is held or
// written whole. Over HTTP(S) the body count stops the fetch first (a
// body holds the pack and more).
func withPackCap(r *git.Repository, b *fetchBudget) (*git.Repository, error) {
	if b == nil {
		return r, nil
	}
	s, ok := r.Storer.(*filesystem.Storage)
	if !ok {
		// Refuse rather than fetch uncapped.
		return nil, fmt.Errorf("gitsource: a fetch size cap needs an on-disk repository, not %T", r.Storer)
	}
	return git.Open(&cappedStorage{Storage: s, b: b}, nil)
}

// cappedStorage is a repository's own storage (the same object, so its
// caches stay one) with a counting pack writer.
type cappedStorage struct {
	*filesystem.Storage
	b *fetchBudget
}

// PackfileWriter counts what is written to the storage's own writer.
func (s *cappedStorage) PackfileWriter() (io.WriteCloser, error) {
	w, err := s.Storage.PackfileWriter()
	if err != nil {
		return nil, err
	}
	return &cappedPackWriter{w: w, b: s.b}, nil
}

type cappedPackWriter struct {
	w io.WriteCloser
	b *fetchBudget
	n int64
}

func (c *cappedPackWriter) Write(p []byte) (int, error) {
	if c.n+int64(len(p)) > c.b.limit {
		e := &FetchTooLargeError{Limit: c.b.limit, Read: c.n + int64(len(p))}
		c.b.exceeded.CompareAndSwap(nil, e)
		return 0, c.b.exceeded.Load()
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func (c *cappedPackWriter) Close() error { return c.w.Close() }

// removePartialPacks deletes the temporary pack files a refused fetch
// leaves: go-git's pack writer keeps its temporary file when the pack it
// received does not parse.
func removePartialPacks(r *git.Repository) {
	s, ok := r.Storer.(*filesystem.Storage)
	if !ok {
		return
	}
	fs := s.Filesystem()
	dir := path.Join("objects", "pack")
	entries, err := fs.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if ok, _ := path.Match("tmp_pack_*", e.Name()); ok {
			_ = fs.Remove(path.Join(dir, e.Name()))
		}
	}
}
