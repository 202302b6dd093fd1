package catalog_test

import (
	"bufio"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime/metrics"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/internal/corpus"
)

// corpusDir is the shared corpus of real catalogs (see its SOURCES.md);
// tests that need it fail when it is absent (internal/corpus).
func corpusDir(tb testing.TB) string {
	tb.Helper()
	return corpus.Path(tb, "catalogs")
}

// loaded is one corpus catalog read once per test binary: loading the large
// ones takes a second or more.
type loaded struct {
	once sync.Once
	cfg  *fbc.Config
	err  error
}

var loadedCorpus sync.Map // dir -> *loaded

func loadCorpus(t testing.TB, dir string) *fbc.Config {
	t.Helper()
	full := corpus.Path(t, "catalogs/"+dir)
	v, _ := loadedCorpus.LoadOrStore(dir, &loaded{})
	l := v.(*loaded)
	l.once.Do(func() { l.cfg, l.err = fbc.LoadDir(t.Context(), full) })
	if l.err != nil {
		t.Fatalf("load %s: %v", dir, l.err)
	}
	return l.cfg
}

// subConfig keeps the objects of cfg that come from files under prefix:
// the catalog that directory is on its own, without reading it again.
func subConfig(cfg *fbc.Config, prefix string) *fbc.Config {
	prefix += string(filepath.Separator)
	in := func(p catalog.Pos) bool { return strings.HasPrefix(p.File, prefix) }
	out := &fbc.Config{}
	for _, x := range cfg.Packages {
		if in(x.Pos) {
			out.Packages = append(out.Packages, x)
		}
	}
	for _, x := range cfg.Channels {
		if in(x.Pos) {
			out.Channels = append(out.Channels, x)
		}
	}
	for _, x := range cfg.Bundles {
		if in(x.Pos) {
			out.Bundles = append(out.Bundles, x)
		}
	}
	for _, x := range cfg.Deprecations {
		if in(x.Pos) {
			out.Deprecations = append(out.Deprecations, x)
		}
	}
	for _, x := range cfg.Others {
		if in(x.Pos) {
			out.Others = append(out.Others, x)
		}
	}
	return out
}

func subdirs(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(corpus.Path(t, "catalogs/"+dir))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, path.Join(dir, e.Name()))
		}
	}
	return out
}

// TestCorpusVerdicts gives every catalog of the corpus opm's verdict
// (SOURCES.md, "Expected results").
func TestCorpusVerdicts(t *testing.T) {
	root := corpusDir(t)
	invalid := map[string]string{
		"upstream-testdata/operator-registry/e2e-test-configs": `package "prometheus", bundle "prometheusoperator.0.14.0" not found in any channel entries`,
	}
	var dirs []string
	dirs = append(dirs, "certified-operators-v4.20-name-collisions", "trusted-profile-analyzer-v4.18-deprecations")
	dirs = append(dirs, subdirs(t, "oc-mirror-testdata")...)
	for _, d := range subdirs(t, "upstream-testdata") {
		dirs = append(dirs, subdirs(t, d)...)
	}
	check := func(t *testing.T, dir string, c *catalog.Catalog) {
		ps := c.Validate()
		want, bad := invalid[dir]
		if !bad {
			if len(ps) > 0 {
				t.Errorf("opm accepts %s; olmops reports:\n%v", dir, ps)
			}
			return
		}
		found := false
		for _, p := range ps {
			found = found || p.Message == want
		}
		if !found {
			t.Errorf("%s: want problem %q, got:\n%v", dir, want, ps)
		}
	}
	for _, dir := range dirs {
		t.Run(dir, func(t *testing.T) {
			c, err := catalog.LoadDir(t.Context(), filepath.Join(root, dir), path.Base(dir))
			if err != nil {
				t.Fatalf("load: %v", err)
			}
			check(t, dir, c)
		})
	}
	for _, composite := range []string{"ocp-v4.20", "ocp-v4.16"} {
		t.Run(composite, func(t *testing.T) {
			cfg := loadCorpus(t, composite)
			check(t, composite, catalog.New(composite, cfg))
			for _, sub := range subdirs(t, composite) {
				t.Run(path.Base(sub), func(t *testing.T) {
					check(t, sub, catalog.New(path.Base(sub), subConfig(cfg, filepath.Join(root, sub))))
				})
			}
		})
	}
}

// TestCorpusNameCollision puts the certified copies of three packages next
// to ocp-v4.20 in one file system: opm then fails on the first duplicate.
func TestCorpusNameCollision(t *testing.T) {
	fsys := unionFS{
		"ocp-v4.20":  os.DirFS(corpus.Path(t, "catalogs/ocp-v4.20")),
		"collisions": os.DirFS(corpus.Path(t, "catalogs/certified-operators-v4.20-name-collisions")),
	}
	cfg, err := fbc.Load(t.Context(), fsys, fbc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ps := catalog.New("merged", cfg).Validate()
	var dups []string
	for _, p := range ps {
		if strings.HasPrefix(p.Message, "duplicate package ") {
			dups = append(dups, p.Package)
			// "collisions" walks first, so the community copy is the duplicate.
			if !strings.HasPrefix(p.Pos.File, "ocp-v4.20/community-operators-prod/") || p.Pos.Line == 0 ||
				!strings.Contains(p.Message, "(first defined at collisions/") {
				t.Errorf("duplicate reported as %v, want the community copy's file and line", p)
			}
		}
	}
	if !strings.Contains(ps.Error(), `duplicate package "trident-operator"`) {
		t.Errorf("want duplicate package \"trident-operator\", got:\n%v", ps)
	}
	sort.Strings(dups)
	if want := "trident-operator,victoriametrics-operator,visionone-containersecurity"; strings.Join(dups, ",") != want {
		t.Errorf("duplicates = %v, want %s", dups, want)
	}
}

// TestCorpusHeads compares the channel heads of ocp-v4.20 with those opm
// lists (opm alpha list channels).
func TestCorpusHeads(t *testing.T) {
	f, err := os.Open(corpus.Path(t, "catalogs/expected-heads-ocp-v4.20.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := catalog.New("ocp-v4.20", loadCorpus(t, "ocp-v4.20"))
	want := map[[2]string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 3 || fields[0] == "PACKAGE" {
			continue
		}
		want[[2]string{fields[0], fields[1]}] = fields[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, pn := range c.PackageNames() {
		p := c.Packages[pn]
		for _, cn := range p.ChannelNames() {
			got++
			key := [2]string{pn, cn}
			head, err := p.Channels[cn].Head()
			switch {
			case err != nil:
				t.Errorf("%s/%s: %v", pn, cn, err)
			case head.Name != want[key]:
				t.Errorf("%s/%s: head %q, opm says %q", pn, cn, head.Name, want[key])
			}
			delete(want, key)
		}
	}
	if got != 307 || len(want) != 0 {
		t.Errorf("%d channels, want 307; channels opm lists that olmops lacks: %v", got, want)
	}
}

// BenchmarkLoadValidate loads and validates ocp-v4.20, the largest catalog
// of the corpus, and reports the peak heap seen while doing it.
func BenchmarkLoadValidate(b *testing.B) {
	dir := corpus.Path(b, "catalogs/ocp-v4.20")
	b.ReportAllocs()
	stop := make(chan struct{})
	peak := make(chan uint64)
	go samplePeakHeap(stop, peak)
	for b.Loop() {
		c, err := catalog.LoadDir(b.Context(), dir, "ocp-v4.20")
		if err != nil {
			b.Fatal(err)
		}
		if ps := c.Validate(); len(ps) > 0 {
			b.Fatal(ps)
		}
	}
	close(stop)
	b.ReportMetric(float64(<-peak)/(1<<20), "peak-heap-MiB")
}

// samplePeakHeap reads the live heap every millisecond until stop closes,
// then sends the largest value seen.
func samplePeakHeap(stop <-chan struct{}, out chan<- uint64) {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	var max uint64
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		metrics.Read(s)
		if v := s[0].Value.Uint64(); v > max {
			max = v
		}
		select {
		case <-stop:
			out <- max
			return
		case <-tick.C:
		}
	}
}

// unionFS mounts file systems side by side under a synthetic root, so
// that two catalog folders can be loaded as one catalog without copying.
type unionFS map[string]fs.FS

func (u unionFS) split(name string) (fs.FS, string, bool) {
	first, rest, _ := strings.Cut(name, "/")
	sub, ok := u[first]
	if rest == "" {
		rest = "."
	}
	return sub, rest, ok
}

func (u unionFS) Open(name string) (fs.File, error) {
	if name == "." {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	sub, rest, ok := u.split(name)
	if !ok {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	return sub.Open(rest)
}

func (u unionFS) Stat(name string) (fs.FileInfo, error) {
	if name == "." {
		for _, sub := range u {
			return fs.Stat(sub, ".")
		}
	}
	sub, rest, ok := u.split(name)
	if !ok {
		return nil, &fs.PathError{Op: "stat", Path: name, Err: fs.ErrNotExist}
	}
	return fs.Stat(sub, rest)
}

func (u unionFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if name == "." {
		var out []fs.DirEntry
		for _, mount := range sortedMounts(u) {
			fi, err := fs.Stat(u[mount], ".")
			if err != nil {
				return nil, err
			}
			out = append(out, fs.FileInfoToDirEntry(renamed{fi, mount}))
		}
		return out, nil
	}
	sub, rest, ok := u.split(name)
	if !ok {
		return nil, &fs.PathError{Op: "readdir", Path: name, Err: fs.ErrNotExist}
	}
	return fs.ReadDir(sub, rest)
}

func sortedMounts(u unionFS) []string {
	out := make([]string, 0, len(u))
	for k := range u {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

type renamed struct {
	fs.FileInfo
	name string
}

func (r renamed) Name() string { return r.name }
