package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/internal/hugeheap"
)

// catalogError says the files of a catalog could not be read or decoded.
// It counts as findings (exit 1): the input is wrong, not the command line.
type catalogError struct {
	Dir      string
	Problems catalog.Problems
}

func (e *catalogError) Error() string {
	return fmt.Sprintf("catalog %s cannot be loaded:\n%s", e.Dir, e.Problems.Error())
}

// Is makes a catalogError map to the findings exit code.
func (e *catalogError) Is(target error) bool { return target == errFindings }

// checkDir fails with an I/O error unless dir is a directory.
func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("catalog: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("catalog %s: not a directory", dir)
	}
	return nil
}

// loadCatalog loads the catalog in dir. A missing or unreadable directory is
// an I/O error; files that cannot be decoded give a *catalogError.
func loadCatalog(ctx context.Context, dir string) (*catalog.Catalog, error) {
	if err := checkDir(dir); err != nil {
		return nil, err
	}
	if catalogBytes(dir, hugeHeapFrom) >= hugeHeapFrom {
		hugeheap.Reserve(hugeheap.Size)
	}
	c, err := catalog.LoadDir(ctx, dir, filepath.Base(filepath.Clean(dir)))
	if err == nil {
		return c, nil
	}
	var fe *fbc.Error
	if ctx.Err() != nil || !errors.As(err, &fe) {
		return nil, fmt.Errorf("catalog %s: %w", dir, err)
	}
	return nil, &catalogError{Dir: dir, Problems: catalog.AsProblems(err)}
}

// hugeHeapFrom is the size of catalog from which a load gains from huge
// pages more than the collection asking for them costs. Measured with
// `perf stat` (docs/performance.md): validate of 3.1 MB of files takes
// 0.92× the CPU, 4.4 MB 0.83×, ocp-v4.20 0.75×; examples/ (20 KB) would
// take 13–17 ms more.
const hugeHeapFrom = 2 << 20

// catalogBytes adds up the sizes of the regular files under dir until it
// reaches limit; what cannot be read counts nothing (the load reports it).
func catalogBytes(dir string, limit int64) int64 {
	var total int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			total += fi.Size()
		}
		if total >= limit {
			return fs.SkipAll
		}
		return nil
	})
	return total
}
