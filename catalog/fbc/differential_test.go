package fbc

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/internal/corpus"
)

// sharedCatalogs is the folder of real catalogs the differential tests
// read (internal/corpus).
func sharedCatalogs(t testing.TB) string {
	t.Helper()
	return corpus.Path(t, "catalogs")
}

// canonical is a Config with every raw value decoded, so that values
// written differently but meaning the same compare equal.
func canonical(t testing.TB, c *Config) any {
	t.Helper()
	val := func(v property.Value) any {
		b, err := v.JSON()
		if err != nil {
			return "error"
		}
		var x any
		if err := json.Unmarshal(b, &x); err != nil {
			return "error"
		}
		return x
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
		out = append(out, []any{"package", p.Pos, p.Name, p.DefaultChannel, p.Description, icon, props(p.Properties)})
	}
	for _, ch := range c.Channels {
		out = append(out, []any{"channel", ch.Pos, ch.Package, ch.Name, ch.Entries, props(ch.Properties)})
	}
	for _, b := range c.Bundles {
		out = append(out, []any{"bundle", b.Pos, b.Package, b.Name, b.Image, b.RelatedImages, props(b.Properties)})
	}
	for _, d := range c.Deprecations {
		out = append(out, []any{"deprecation", d})
	}
	for _, o := range c.Others {
		out = append(out, []any{"other", o.Pos, o.Schema, o.Package, o.Name, val(o.Value)})
	}
	return out
}

func TestFastMatchesReferenceOnSharedCatalogs(t *testing.T) {
	strictFast = true
	defer func() { strictFast = false }()
	root := sharedCatalogs(t)
	var fallbacks []string
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if isJSON(data) || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return nil
		}
		n++
		ref, refErr := decodeYAMLReference(path, data)
		fast, ok := decodeYAMLFast(path, data)
		if !ok {
			fallbacks = append(fallbacks, path)
			return nil
		}
		if refErr != nil {
			t.Errorf("%s: reference fails (%v) but the fast path succeeds", path, refErr)
			return nil
		}
		if a, b := canonical(t, fast), canonical(t, ref); !reflect.DeepEqual(a, b) {
			t.Errorf("%s: fast and reference differ", path)
			diffFirst(t, a, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d YAML files, %d fell back: %v", n, len(fallbacks), fallbacks)
}

func diffFirst(t testing.TB, a, b any) {
	t.Helper()
	as, bs := a.([]any), b.([]any)
	for i := range min(len(as), len(bs)) {
		if !reflect.DeepEqual(as[i], bs[i]) {
			ja, _ := json.Marshal(as[i])
			jb, _ := json.Marshal(bs[i])
			t.Logf("fast: %.2000s\nref:  %.2000s", ja, jb)
			return
		}
	}
	t.Logf("lengths %d vs %d", len(as), len(bs))
}

func TestFastEligible(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"plain ascii text, long enough for words\n", true},
		{"tab\tand newline\n", true},
		{"carriage\r\n", false},
		{"0123456789abcdef\x7f", false},
		{"0123456789abcdef\x00", false},
		{"caf\u00e9 \u4e16\u754c 0123456789", true},
		{"\ufeffbom", false},
		{"nel\u0085", false},
		{"ls\u2028", false},
		{"bad \xff utf8 0123456789", false},
		{"0123456789abcde~", true},
		// A line end shares its eight bytes with what follows it.
		{"key: a\nb: c\nd: efgh\n  - x\n", true},
		{"key: a\nb\x01c\nd: efgh\n", false},
		{"key: a\nb\x7fc\nd: efgh\n", false},
		{"key: a\nb\x1fc\nd: efgh\n", false},
		{"key: a\nb\rc\nd: efgh\n", false},
		{"key: a\nb\tc\nd: efgh\n", true},
		{"\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n", true},
		{"\x00\x00\x00\x00\x00\x00\x00\x00", false},
		{"        \x0b       ", false},
	} {
		if got := fastEligible([]byte(tc.in)); got != tc.want {
			t.Errorf("fastEligible(%q) = %v, want %v", tc.in, got, tc.want)
		}
		if got := eligibleByRune([]byte(tc.in)); got != tc.want {
			t.Errorf("eligibleByRune(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// eligibleByRune is fastEligible's definition, one rune at a time.
func eligibleByRune(data []byte) bool {
	if !utf8.Valid(data) {
		return false
	}
	for _, r := range string(data) {
		switch {
		case r == '\n' || r == '\t' || (r >= 0x20 && r <= 0x7e):
		case r >= 0xA0 && r <= 0xD7FF && r != 0x2028 && r != 0x2029:
		case r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF:
		case r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
	}
	return true
}

// FuzzFastEligible checks the eight-bytes-at-a-time scan against the
// definition.
func FuzzFastEligible(f *testing.F) {
	for _, s := range []string{"plain: text\n- item\n", "a\nb\x01", "caf\u00e9\n\x7f", "\ufeff", "\t\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := fastEligible(data), eligibleByRune(data); got != want {
			t.Fatalf("fastEligible(%q) = %v, want %v", data, got, want)
		}
	})
}

// flattenNestedPos sets the positions of nested objects to their object's
// position, as the reference JSON decoder reports them, after checking that
// they are not before it.
func flattenNestedPos(t testing.TB, c *Config) {
	t.Helper()
	fix := func(obj Pos, p *Pos) {
		if p.File != obj.File || p.Line < obj.Line {
			t.Errorf("nested position %s before its object at %s", p, obj)
		}
		*p = obj
	}
	for i := range c.Packages {
		for j := range c.Packages[i].Properties {
			fix(c.Packages[i].Pos, &c.Packages[i].Properties[j].Pos)
		}
	}
	for i := range c.Channels {
		ch := &c.Channels[i]
		for j := range ch.Entries {
			fix(ch.Pos, &ch.Entries[j].Pos)
		}
		for j := range ch.Properties {
			fix(ch.Pos, &ch.Properties[j].Pos)
		}
	}
	for i := range c.Bundles {
		for j := range c.Bundles[i].Properties {
			fix(c.Bundles[i].Pos, &c.Bundles[i].Properties[j].Pos)
		}
	}
	for i := range c.Deprecations {
		for j := range c.Deprecations[i].Entries {
			fix(c.Deprecations[i].Pos, &c.Deprecations[i].Entries[j].Pos)
		}
	}
}

func TestFastJSONMatchesReferenceOnSharedCatalogs(t *testing.T) {
	strictFast = true
	defer func() { strictFast = false }()
	root := sharedCatalogs(t)
	n := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil || !isJSON(data) {
			return err
		}
		n++
		ref, refErr := decodeJSONReference(path, data)
		fast, ok := decodeJSONFast(path, data)
		switch {
		case !ok && refErr == nil:
			t.Errorf("%s: the fast path declines a file the reference reads", path)
		case ok && refErr != nil:
			t.Errorf("%s: reference fails (%v) but the fast path succeeds", path, refErr)
		case ok:
			flattenNestedPos(t, fast)
			if a, b := canonical(t, fast), canonical(t, ref); !reflect.DeepEqual(a, b) {
				t.Errorf("%s: fast and reference differ", path)
				diffFirst(t, a, b)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d JSON files", n)
}
