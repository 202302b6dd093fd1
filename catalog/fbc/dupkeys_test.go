package fbc

import (
	"reflect"
	"strings"
	"testing"
)

// TestDuplicateKeysLastWins pins issue 15 item 3: a key written twice in a
// YAML mapping keeps its last value, as opm reads it (YAML to JSON, then
// into Go maps and structs), through the fast decoder and the reference one
// alike, and Decode warns with both lines.
func TestDuplicateKeysLastWins(t *testing.T) {
	const bundle = "schema: olm.bundle\npackage: foo\nname: foo.v0.2.0\nimage: example.com/foo:v2\n"
	for _, tc := range []struct {
		name, data string
		check      func(c *Config) string // what was read
		want       string
		warnings   []string
	}{
		{name: "object field",
			data:  "schema: olm.package\nname: first\ndefaultChannel: stable\nname: foo\n",
			check: func(c *Config) string { return c.Packages[0].Name }, want: "foo",
			warnings: []string{`f.yaml:4: duplicate key "name" (first at line 2); the last value is used, as opm reads it`}},
		{name: "channel entry field",
			data:  "schema: olm.channel\npackage: foo\nname: stable\nentries:\n  - name: foo.v0.2.0\n    replaces: foo.v0.0.1\n    replaces: foo.v0.1.0\n",
			check: func(c *Config) string { return c.Channels[0].Entries[0].Replaces }, want: "foo.v0.1.0",
			warnings: []string{`f.yaml:7: duplicate key "replaces" (first at line 6)`}},
		{name: "flow mapping in a property value",
			data:  bundle + "properties:\n  - {type: olm.package, value: {packageName: foo, version: 0.1.0, version: 0.2.0}}\n",
			check: func(c *Config) string { return propJSON(t, c) }, want: `{"packageName":"foo","version":"0.2.0"}`,
			warnings: []string{`f.yaml:6: duplicate key "version" (first at line 6)`}},
		{name: "block mapping in a property value",
			data:  bundle + "properties:\n  - type: olm.package\n    value:\n      packageName: foo\n      version: 0.1.0\n      version: 0.2.0\n",
			check: func(c *Config) string { return propJSON(t, c) }, want: `{"packageName":"foo","version":"0.2.0"}`,
			warnings: []string{`f.yaml:10: duplicate key "version" (first at line 9)`}},
		{name: "three times",
			data:  "schema: olm.package\nname: a\nname: b\nname: foo\n",
			check: func(c *Config) string { return c.Packages[0].Name }, want: "foo",
			warnings: []string{`f.yaml:3: duplicate key "name" (first at line 2)`, `f.yaml:4: duplicate key "name" (first at line 2)`}},
		{name: "no duplicates",
			data:  "schema: olm.package\nname: foo\n",
			check: func(c *Config) string { return c.Packages[0].Name }, want: "foo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := []byte(tc.data)
			// Both decoders, on their own: the fast one must decline the
			// file (it cannot warn) or read what the reference reads.
			ref, err := decodeYAMLReference("f.yaml", data)
			if err != nil {
				t.Fatalf("reference: %v", err)
			}
			if got := tc.check(ref); got != tc.want {
				t.Errorf("reference read %q, want %q", got, tc.want)
			}
			if fast, ok := decodeYAMLFast("f.yaml", data); ok {
				if len(tc.warnings) > 0 {
					t.Errorf("the fast path accepted a file with a duplicate key")
				}
				if got := tc.check(fast); got != tc.want {
					t.Errorf("fast read %q, want %q", got, tc.want)
				}
			}
			c, err := Decode("f.yaml", data)
			if err != nil {
				t.Fatal(err)
			}
			if got := tc.check(c); got != tc.want {
				t.Errorf("Decode read %q, want %q", got, tc.want)
			}
			var got []string
			for _, w := range c.Warnings {
				got = append(got, w.String())
			}
			if len(got) != len(tc.warnings) {
				t.Fatalf("warnings %q, want %q", got, tc.warnings)
			}
			for i, w := range tc.warnings {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("warning %q, want it to start %q", got[i], w)
				}
			}
		})
	}
}

func propJSON(t *testing.T, c *Config) string {
	t.Helper()
	b, err := c.Bundles[0].Properties[0].Value.JSON()
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}

// TestDuplicateKeysDifferential: on inputs with keys written twice at
// every level the fast path parses, both decoders read the same catalog
// whenever the fast one accepts.
func TestDuplicateKeysDifferential(t *testing.T) {
	for _, data := range duplicateSeeds {
		t.Run("", func(t *testing.T) {
			ref, err := decodeYAMLReference("f", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			fast, ok := decodeYAMLFast("f", []byte(data))
			if ok && !reflect.DeepEqual(canonical(t, fast), canonical(t, ref)) {
				t.Errorf("fast and reference differ on %q", data)
			}
		})
	}
}

var duplicateSeeds = []string{
	"schema: olm.package\nname: a\nname: b\n",
	"schema: olm.channel\npackage: p\nname: c\nentries:\n- {name: a, name: b}\n",
	"schema: olm.bundle\npackage: p\nname: b\nproperties:\n- type: olm.gvk\n  type: olm.package\n  value: {packageName: p, version: 1.0.0}\n",
	"schema: olm.bundle\npackage: p\nname: b\nproperties:\n- type: olm.csv.metadata\n  value:\n    a: 1\n    a: 2\n",
	"schema: x\nvalue: {k: 1, k: 2}\nvalue: {k: 3}\n",
}
