package fbc

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// bigPackage is a YAML file of several pages, on the fast path.
func bigPackage(name string) string {
	return "schema: olm.package\nname: " + name + "\ndescription: " + strings.Repeat("lorem ipsum ", 4000) + "\n"
}

// mapped opens path and maps size bytes of it, or skips where files are
// not mapped.
func mapped(t *testing.T, path string, size int64) []byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	mem, ok := mapFile(f, size)
	if !ok {
		t.Skip("files are not mapped on this platform")
	}
	t.Cleanup(func() { _ = unmapFile(mem) })
	return mem
}

// TestTruncatedUnderTheMapping truncates a mapped file and decodes it
// through the guard: the lost pages raise SIGBUS, which must come back as
// a fault, not crash the test binary.
func TestTruncatedUnderTheMapping(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.yaml")
	text := bigPackage("p")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	mem := mapped(t, path, int64(len(text)))
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	decoded := false
	faulted := guardFaults(mem, func() {
		_, _ = Decode(path, mem)
		decoded = true
	})
	if !faulted || decoded {
		t.Errorf("decoding a truncated mapping: faulted %v, decoded %v; want a fault", faulted, decoded)
	}
}

// TestGuardFaultsLetsOtherPanicsGo: only a fault inside the mapping is the
// file's doing; anything else is a bug and must not become an error.
func TestGuardFaultsLetsOtherPanicsGo(t *testing.T) {
	defer func() {
		if r := recover(); r != "bug" {
			t.Errorf("recovered %v, want the panic to go on", r)
		}
	}()
	guardFaults(make([]byte, 8), func() { panic("bug") })
	t.Error("guardFaults returned")
}

// TestLoadMappedRefusesAChangedFile loads files whose size changed after
// they were listed: shrunk (the mapping reaches past the end: SIGBUS on
// the pages beyond it), shrunk within its last page (zeros, no fault) and
// grown. Each must be an error naming the file, never a crash nor a
// decoded prefix.
func TestLoadMappedRefusesAChangedFile(t *testing.T) {
	dir := t.TempDir()
	text := bigPackage("p")
	for _, tc := range []struct {
		name   string
		listed int64
	}{
		{"shrunk by pages", int64(len(text)) + 3*4096},
		{"shrunk within its last page", int64(len(text)) + 1},
		{"grown", int64(len(text)) - 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(dir, "p.yaml")
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			fsys := os.DirFS(dir)
			r, mapped := loadMapped(fsys, "p.yaml", path, tc.listed, &fileSpan{open: fsys.Open, name: "p.yaml", size: tc.listed})
			if !mapped {
				t.Skip("files are not mapped on this platform")
			}
			if r.cfg != nil || !errors.Is(r.err, errChanged) || !strings.Contains(r.err.Error(), path) {
				t.Errorf("got config %v, error %v; want only an error naming %s", r.cfg, r.err, path)
			}
		})
	}
}

// TestLoadMapsLargeFiles loads a catalog with one file above the mapping
// threshold and one below: the same objects as read, and the large file
// was indeed decoded from a mapping.
func TestLoadMapsLargeFiles(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"big.yaml": bigPackage("big"), "small.yaml": pkg("small")})
	fsys := os.DirFS(dir)
	if _, mapped := loadMapped(fsys, "big.yaml", "big.yaml", int64(len(bigPackage("big"))), &fileSpan{}); !mapped {
		t.Skip("files are not mapped on this platform")
	}
	for _, from := range []int64{0, 1, 1 << 40} {
		c, err := Load(t.Context(), fsys, Options{mapFrom: from})
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(packageNames(c), ","); got != "big,small" || c.Packages[0].Description != strings.TrimSpace(strings.Repeat("lorem ipsum ", 4000)) {
			t.Errorf("mapFrom %d: packages %s, description of %d bytes", from, got, len(c.Packages[0].Description))
		}
	}
}
