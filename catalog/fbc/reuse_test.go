package fbc

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/property"
)

// TestLoadFileKeepsNothingOfItsBuffer loads every file into one reused
// buffer, scribbles over the buffer after each, and compares what was
// loaded with a load into a buffer of its own: a value still pointing into
// the buffer would read the scribbles. The files are the largest real
// catalog and the cases that leave the fast paths.
func TestLoadFileKeepsNothingOfItsBuffer(t *testing.T) {
	odd := t.TempDir()
	for name, text := range map[string]string{
		"anchor.yaml":    "schema: olm.package\nname: &n a\ndescription: *n\nicon: {base64data: " + strings.Repeat("QUFB", DetachLimit) + ", mediatype: image/png}\n",
		"dupkey.yaml":    "schema: olm.bundle\nname: b\nname: b2\npackage: a\nproperties:\n- type: olm.csv.metadata\n  value: {description: " + strings.Repeat("d", 2*DetachLimit) + "}\n",
		"flow.yaml":      "schema: olm.channel\npackage: a\nname: c\nentries: [{name: b2,\n  skips: [x]}]\n",
		"crlf.yaml":      "schema: olm.package\r\nname: crlf\r\n",
		"objects.json":   `{"schema":"olm.package","name":"j"}` + "\n" + `{"schema":"olm.bundle","name":"j.v1","package":"j","properties":[{"type":"olm.bundle.object","value":{"data":"` + strings.Repeat("e30=", DetachLimit) + `"}}]}`,
		"dupkey.json":    `{"schema":"olm.package","name":"j2","name":"j3"}`,
		"broken.yaml":    "schema: olm.package\nname: [\n",
		"other.yaml":     "schema: example.com/thing\nname: t\nbody: " + strings.Repeat("t", 2*DetachLimit) + "\n",
		"nested/z.yaml":  "schema: olm.deprecations\npackage: a\nentries:\n- reference: {schema: olm.package}\n  message: gone\n",
		"empty.yaml":     "",
		"comments.yaml":  "# nothing but a comment\n",
		"unicode.yaml":   "schema: olm.package\nname: caf\u00e9\ndescription: \"\u4e16\u754c\"\n",
		"tabindent.yaml": "schema: olm.package\nname: tab\nproperties:\n-\ttype: x\n",
	} {
		path := filepath.Join(odd, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, root := range []string{odd, filepath.Join(sharedCatalogs(t), "ocp-v4.20")} {
		fsys := os.DirFS(root)
		files, err := catalogFiles(t.Context(), fsys)
		if err != nil {
			t.Fatal(err)
		}
		opts := Options{MaxFileSize: DefaultMaxFileSize}
		var buf []byte
		for _, name := range files {
			var got fileResult
			got, buf = loadFile(fsys, name, opts, buf)
			scribble := buf[:cap(buf)]
			for i := range scribble {
				scribble[i] = '!'
			}
			want, _ := loadFile(fsys, name, opts, nil)
			if errString(got.err) != errString(want.err) {
				t.Errorf("%s: error %v after reuse, %v alone", name, got.err, want.err)
			}
			if (got.cfg == nil) != (want.cfg == nil) {
				t.Errorf("%s: config %v after reuse, %v alone", name, got.cfg, want.cfg)
				continue
			}
			if got.cfg != nil && !reflect.DeepEqual(asWritten(t, got.cfg), asWritten(t, want.cfg)) {
				t.Errorf("%s: what was loaded changed when its buffer was overwritten", name)
			}
		}
		if cap(buf) == 0 {
			t.Errorf("%s: no buffer was reused", root)
		}
	}
}

// asWritten is a Config with every value as its bytes, read back from the
// file when held by reference: cheaper than canonical, and what a value
// left pointing into a reused buffer would change.
func asWritten(t testing.TB, c *Config) any {
	t.Helper()
	val := func(v property.Value) any {
		b, err := v.Bytes()
		if err != nil {
			t.Fatal(err)
		}
		return [2]any{v.Format, string(b)}
	}
	props := func(ps []property.Property) []any {
		var out []any
		for _, p := range ps {
			out = append(out, []any{p.Pos, p.Type, val(p.Value)})
		}
		return out
	}
	var out []any
	for _, p := range c.Packages {
		var icon any = "none"
		if p.Icon != nil {
			icon = val(*p.Icon)
		}
		out = append(out, []any{p.Pos, p.Name, p.DefaultChannel, p.Description, icon, props(p.Properties)})
	}
	for _, ch := range c.Channels {
		out = append(out, []any{ch.Pos, ch.Package, ch.Name, ch.Entries, props(ch.Properties)})
	}
	for _, b := range c.Bundles {
		out = append(out, []any{b.Pos, b.Package, b.Name, b.Image, b.RelatedImages, props(b.Properties)})
	}
	for _, o := range c.Others {
		out = append(out, []any{o.Pos, o.Schema, o.Package, o.Name, val(o.Value)})
	}
	return append(out, c.Deprecations, c.Warnings)
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestReadFileGrowsAndBounds reads files into buffers too small and too
// large, and refuses a file beyond the limit however its size was listed.
func TestReadFileGrowsAndBounds(t *testing.T) {
	dir := t.TempDir()
	text := strings.Repeat("0123456789", 300)
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	fsys := os.DirFS(dir)
	for _, tc := range []struct {
		name   string
		listed int64
		buf    []byte
	}{
		{"no buffer", 3000, nil},
		{"listed smaller than it is", 10, nil},
		{"small buffer", 3000, make([]byte, 5, 7)},
		{"large buffer holding bytes", 3000, append(make([]byte, 0, 1<<16), "left over"...)},
	} {
		got, err := readFile(fsys, "f", tc.listed, 1<<20, tc.buf)
		if err != nil || string(got) != text {
			t.Errorf("%s: read %d bytes, %v; want %d", tc.name, len(got), err, len(text))
		}
	}
	// A buffer far larger than the file is let go, not held on to.
	if got, err := readFile(fsys, "f", 3000, 1<<20, make([]byte, 0, 1<<20)); err != nil || cap(got) >= 1<<20 {
		t.Errorf("a 3000-byte file kept a buffer of %d bytes (%v)", cap(got), err)
	}
	if _, err := readFile(fsys, "f", 10, 2999, nil); err != errGrew {
		t.Errorf("a file past the limit: %v, want errGrew", err)
	}
	if _, err := readFile(fsys, "missing", 10, 2999, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
}
