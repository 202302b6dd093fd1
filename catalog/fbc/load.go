package fbc

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
)

// DefaultMaxFileSize bounds one catalog file; the largest real catalog files
// are tens of megabytes.
const DefaultMaxFileSize = 256 << 20

// IndexIgnore is the name of the files that exclude paths from a catalog,
// with gitignore semantics relative to the folder they sit in.
const IndexIgnore = ".indexignore"

// Options tune Load.
type Options struct {
	// Prefix is joined before every path in positions (e.g. the directory
	// the fs.FS was opened on), so errors point at files a person can open.
	Prefix string
	// MaxFileSize refuses larger files; 0 means DefaultMaxFileSize.
	MaxFileSize int64
	// Workers decode files in parallel; 0 means GOMAXPROCS.
	Workers int

	// reopen opens a file again to read a value back; nil uses the fs.FS.
	reopen func(name string) (fs.File, error)
}

// LoadDir loads the catalog in dir. Symlinks that leave dir are refused.
func LoadDir(ctx context.Context, dir string) (*Config, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Values read back later go through a root of their own: this one is
	// closed when loading is done.
	reopen := func(name string) (fs.File, error) { return os.OpenInRoot(dir, filepath.FromSlash(name)) }
	return Load(ctx, root.FS(), Options{Prefix: dir, reopen: reopen})
}

// Load walks fsys in lexical order and decodes every regular file not
// excluded by an .indexignore. Files decode in parallel; the result and the
// errors are in walk order whatever the scheduling, so every run is the same.
func Load(ctx context.Context, fsys fs.FS, opts Options) (*Config, error) {
	files, err := catalogFiles(ctx, fsys)
	if err != nil {
		return nil, err
	}
	if opts.MaxFileSize <= 0 {
		opts.MaxFileSize = DefaultMaxFileSize
	}
	results := make([]fileResult, len(files))
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range min(workers, max(len(files), 1)) {
		wg.Go(func() {
			// One buffer per worker, reused from file to file: a decoded
			// file keeps nothing of it (detach), and reading into warm
			// memory costs neither a fresh allocation nor its page faults.
			var buf []byte
			for i := range next {
				results[i], buf = loadFile(fsys, files[i], opts, buf)
			}
		})
	}
	for _, i := range largestFirst(fsys, files) {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	cfg := &Config{}
	var errs []error
	for _, r := range results {
		if r.cfg != nil {
			cfg.Append(r.cfg)
		}
		if r.err != nil {
			errs = append(errs, r.err)
		}
	}
	return cfg, errors.Join(errs...)
}

// largestFirst orders the files' indexes by decreasing size, so that a big
// file does not start last and leave the other workers idle.
func largestFirst(fsys fs.FS, files []string) []int {
	order := make([]int, len(files))
	sizes := make([]int64, len(files))
	for i, name := range files {
		order[i] = i
		if fi, err := fs.Stat(fsys, name); err == nil {
			sizes[i] = fi.Size()
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(sizes[b], sizes[a]) })
	return order
}

type fileResult struct {
	cfg *Config
	err error
}

// loadFile decodes one file, reading it into buf's memory; it returns buf
// (grown if needed) for the next file. The result never refers to buf.
func loadFile(fsys fs.FS, name string, opts Options, buf []byte) (fileResult, []byte) {
	display := name
	if opts.Prefix != "" {
		display = filepath.Join(opts.Prefix, filepath.FromSlash(name))
	}
	fi, err := fs.Stat(fsys, name)
	if err != nil {
		return fileResult{err: &Error{Pos: Pos{File: display}, Msg: describeOpenError(err), Err: err}}, buf
	}
	if fi.IsDir() {
		return fileResult{}, buf // a symlink to a folder inside the root; opm does not descend either
	}
	if !fi.Mode().IsRegular() {
		return fileResult{err: &Error{Pos: Pos{File: display}, Msg: "not a regular file"}}, buf
	}
	if fi.Size() > opts.MaxFileSize {
		return fileResult{err: &Error{Pos: Pos{File: display}, Msg: fmt.Sprintf("file is %d bytes, more than the %d allowed", fi.Size(), opts.MaxFileSize)}}, buf
	}
	data, err := readFile(fsys, name, fi.Size(), opts.MaxFileSize, buf)
	buf = data[:0]
	if errors.Is(err, errGrew) {
		return fileResult{err: &Error{Pos: Pos{File: display}, Msg: fmt.Sprintf("file grew past the %d bytes allowed while it was read", opts.MaxFileSize)}}, buf
	}
	if err != nil {
		return fileResult{err: &Error{Pos: Pos{File: display}, Msg: describeOpenError(err), Err: err}}, buf
	}
	cfg, err := Decode(display, data)
	if cfg != nil {
		open := opts.reopen
		if open == nil {
			open = fsys.Open
		}
		cfg.detach(data, &fileSpan{open: open, name: name, size: fi.Size()})
	}
	return fileResult{cfg: cfg, err: err}, buf
}

// shrinkSlack is how much larger than twice a file's size a reused
// buffer may be: small files do not each get a buffer of their own.
const shrinkSlack = 64 << 10

// errGrew says a file grew past the size limit while it was read.
var errGrew = errors.New("file grew past the size limit")

// readFile reads the whole of name into buf's memory, growing it when the
// file (size bytes when it was listed) does not fit; more than limit bytes
// is errGrew.
func readFile(fsys fs.FS, name string, size, limit int64, buf []byte) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return buf[:0], err
	}
	defer f.Close()
	// One byte more than the listed size, so that the read reaching
	// io.EOF needs no second growth. Files come largest first: a buffer
	// more than twice the size needed is let go for one that fits, so
	// that what the workers hold shrinks as the catalog they built grows
	// (the heap's peak, and with it the process's RSS, is at the end).
	if want := int(size) + 1; cap(buf) < want || cap(buf) > 2*want+shrinkSlack {
		buf = make([]byte, 0, want)
	}
	data := buf[:0]
	for {
		if len(data) == cap(data) {
			data = slices.Grow(data, len(data)/2+512)
		}
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if int64(len(data)) > limit {
			return data[:0], errGrew
		}
		if err == io.EOF {
			return data, nil
		}
		if err != nil {
			return data[:0], err
		}
	}
}

func describeOpenError(err error) string {
	if strings.Contains(err.Error(), "path escapes from parent") {
		return "symlink leaves the catalog root"
	}
	return "cannot read file"
}

// catalogFiles lists the files of a catalog in lexical walk order, honouring
// every .indexignore on the way. An .indexignore applies to the folder it
// sits in and everything below it.
func catalogFiles(ctx context.Context, fsys fs.FS) ([]string, error) {
	var patterns []gitignore.Pattern
	var files []string
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		parts := splitPath(p)
		if d.IsDir() {
			if p != "." && gitignore.NewMatcher(patterns).Match(parts, true) {
				return fs.SkipDir
			}
			ps, err := readIgnore(fsys, p, parts)
			if err != nil {
				return err
			}
			patterns = append(patterns, ps...)
			return nil
		}
		if d.Name() == IndexIgnore || gitignore.NewMatcher(patterns).Match(parts, false) {
			return nil
		}
		files = append(files, p)
		return nil
	})
	return files, err
}

func readIgnore(fsys fs.FS, dir string, domain []string) ([]gitignore.Pattern, error) {
	data, err := fs.ReadFile(fsys, path.Join(dir, IndexIgnore))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), " \r")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, domain))
	}
	return ps, sc.Err()
}

func splitPath(p string) []string {
	if p == "." || p == "" {
		return nil
	}
	return strings.Split(p, "/")
}
