package fbc

import (
	"reflect"
	"strings"
	"testing"
)

// decodeFastAndReference decodes a YAML or JSON file on the fast path and
// through the reference decoder; when the reference succeeds the fast path
// must succeed too (or decline) and agree with it.
func decodeFastAndReference(t testing.TB, path string, data []byte) (*Config, error) {
	t.Helper()
	strictFast = true
	defer func() { strictFast = false }()
	if isJSON(data) {
		ref, refErr := decodeJSONReference(path, data)
		fast, ok := decodeJSONFast(path, data)
		if ok && refErr == nil {
			got := *fast
			flat := deepCopyConfig(&got)
			flattenNestedPos(t, flat)
			if a, b := canonical(t, flat), canonical(t, ref); !reflect.DeepEqual(a, b) {
				t.Errorf("fast JSON differs from the reference")
				diffFirst(t, a, b)
			}
		}
		if ok && refErr != nil {
			t.Errorf("reference fails (%v), fast JSON succeeds", refErr)
		}
		if ok {
			return fast, nil
		}
		return ref, refErr
	}
	ref, refErr := decodeYAMLReference(path, data)
	fast, ok := decodeYAMLFast(path, data)
	if ok && refErr == nil {
		if a, b := canonical(t, fast), canonical(t, ref); !reflect.DeepEqual(a, b) {
			t.Errorf("fast YAML differs from the reference")
			diffFirst(t, a, b)
		}
	}
	return ref, refErr
}

func deepCopyConfig(c *Config) *Config {
	out := &Config{}
	for _, p := range c.Packages {
		p.Properties = append(p.Properties[:0:0], p.Properties...)
		out.Packages = append(out.Packages, p)
	}
	for _, ch := range c.Channels {
		ch.Entries = append(ch.Entries[:0:0], ch.Entries...)
		ch.Properties = append(ch.Properties[:0:0], ch.Properties...)
		out.Channels = append(out.Channels, ch)
	}
	for _, b := range c.Bundles {
		b.Properties = append(b.Properties[:0:0], b.Properties...)
		out.Bundles = append(out.Bundles, b)
	}
	for _, d := range c.Deprecations {
		d.Entries = append(d.Entries[:0:0], d.Entries...)
		out.Deprecations = append(out.Deprecations, d)
	}
	out.Others = c.Others
	return out
}

const yamlCatalog = `# a comment before anything
---
schema: olm.package
name: foo
defaultChannel: "stable"
description: |
  Foo does things.

  Second paragraph.
icon:
  base64data: PHN2Zz48L3N2Zz4=
  mediatype: image/svg+xml
---
---
# an empty document above
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v1.0.0
  - name: foo.v1.1.0 # trailing comment
    replaces: foo.v1.0.0
    skips: [foo.v1.0.1, 'foo.v1.0.2']
    skipRange: '>=1.0.0 <1.1.0'
---
schema: olm.bundle
package: foo
name: foo.v1.1.0
image: "quay.io/foo/bundle@sha256:\u0061bc"
properties:
- type: olm.package
  value:
    packageName: foo
    version: 1.1.0
- type: olm.gvk
  value: {group: foo.io, kind: Foo, version: v1}
- type: olm.maxOpenShiftVersion
  value: 4.10
- type: olm.csv.metadata
  value:
    description: >-
      folded
      text
    annotations:
      alm-examples: '[{"a": "it''s"}]'
relatedImages:
- name: operator
  image: quay.io/foo/operator:v1
---
schema: olm.deprecations
package: foo
entries:
- reference:
    schema: olm.bundle
    name: foo.v1.0.0
  message: "use \"1.1\"\nplease"
---
schema: my.own
name: thing
package: foo
data: [1, 2]
`

func TestDecodeYAML(t *testing.T) {
	c, err := decodeFastAndReference(t, "cat.yaml", []byte(yamlCatalog))
	if err != nil {
		t.Fatal(err)
	}
	fast, ok := decodeYAMLFast("cat.yaml", []byte(yamlCatalog))
	if !ok {
		t.Fatal("the fast path declined a catalog in its subset")
	}
	for _, c := range []*Config{c, fast} {
		if len(c.Packages) != 1 || len(c.Channels) != 1 || len(c.Bundles) != 1 || len(c.Deprecations) != 1 || len(c.Others) != 1 {
			t.Fatalf("objects: %+v", c)
		}
		p := c.Packages[0]
		if p.Pos.String() != "cat.yaml:3" || p.DefaultChannel != "stable" || p.Description != "Foo does things.\n\nSecond paragraph.\n" || p.Icon == nil {
			t.Errorf("package %+v", p)
		}
		ch := c.Channels[0]
		want := []ChannelEntry{
			{Pos: Pos{File: "cat.yaml", Line: 20}, Name: "foo.v1.0.0"},
			{Pos: Pos{File: "cat.yaml", Line: 21}, Name: "foo.v1.1.0", Replaces: "foo.v1.0.0", Skips: []string{"foo.v1.0.1", "foo.v1.0.2"}, SkipRange: ">=1.0.0 <1.1.0"},
		}
		if ch.Pos.Line != 16 || !reflect.DeepEqual(ch.Entries, want) {
			t.Errorf("channel at %s, entries %+v", ch.Pos, ch.Entries)
		}
		b := c.Bundles[0]
		if b.Image != "quay.io/foo/bundle@sha256:abc" || len(b.Properties) != 4 || b.Properties[1].Pos.Line != 35 {
			t.Errorf("bundle %+v", b)
		}
		if got, _ := b.Properties[2].Value.JSON(); string(got) != "4.1" {
			t.Errorf("maxOpenShiftVersion = %s, want 4.1 (a YAML float)", got)
		}
		d := c.Deprecations[0]
		if d.Entries[0].Pos.Line != 53 || d.Entries[0].Message != "use \"1.1\"\nplease" || d.Entries[0].Name != "foo.v1.0.0" {
			t.Errorf("deprecation %+v", d)
		}
	}
}

func TestDecodeYAMLScalars(t *testing.T) {
	for _, tc := range []struct{ name, value, want string }{
		{"plain", "abc", "abc"},
		{"plain multi-line", "abc\n  def\n\n  ghi", "abc def\nghi"},
		{"plain with colon", "a:b", "a:b"},
		{"single", "'it''s'", "it's"},
		{"single multi-line", "'a\n  b\n\n  c'", "a b\nc"},
		{"double escapes", `"tab\tnl\nq\"bs\\u\u00e9x\x41"`, "tab\tnl\nq\"bs\\u\u00e9xA"},
		{"double multi-line", "\"a   \n   b\\\n   c\"", "a bc"},
		{"literal", "|\n  a\n   b\n\n  c\n", "a\n b\n\nc\n"},
		{"literal strip", "|-\n  a\n", "a"},
		{"literal indent", "|2\n    a\n", "  a\n"},
		{"folded", ">\n  a\n  b\n\n  c\n   d\n  e\n", "a b\nc\n d\ne\n"},
		{"null", "~", ""},
		{"empty", "", ""},
		{"number", "1.10", "1.10"},
		{"comment", "x # y", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := "schema: olm.package\nname: " + tc.value + "\ndefaultChannel: d\n"
			c, err := decodeFastAndReference(t, "s.yaml", []byte(data))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Packages[0].Name; got != tc.want {
				t.Errorf("name = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestDecodeFallsBack(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"anchor and alias", "schema: olm.package\nname: &n foo\ndefaultChannel: *n\n"},
		{"tag", "schema: olm.package\nname: !!str foo\n"},
		{"complex key", "? schema\n: olm.package\nname: foo\n"},
		{"multi-line flow", "schema: olm.channel\npackage: foo\nname: a\nentries: [\n  {name: x}]\n"},
		{"CRLF", "schema: olm.package\r\nname: foo\r\n"},
		{"tab indentation", "schema: olm.package\nname:\n\tfoo\n"},
		{"odd indentation", "schema: olm.package\n  name: foo\n"},
		{"keep chomping", "schema: olm.package\nname: foo\ndescription: |+\n  x\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, ok := decodeYAMLFast("f.yaml", []byte(tc.data)); ok {
				t.Error("the fast path accepted input outside its subset")
			}
			decodeFastAndReference(t, "f.yaml", []byte(tc.data)) // Decode's answer is the reference's
		})
	}
}

func TestDecodeYAMLUnderIndentedQuoted(t *testing.T) {
	// libyaml lets a quoted scalar's continuation lines sit left of its
	// key; the fast path follows the quotes rather than the indentation.
	data := "schema: olm.bundle\nname: b\nproperties:\n- type: t\n  value:\n    a: \"x\n  y: z\"\npackage: p\n"
	c, err := decodeFastAndReference(t, "q.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Bundles[0].Properties[0].Value.JSON(); string(got) != `{"a":"x y: z"}` || c.Bundles[0].Package != "p" {
		t.Errorf("value %s, bundle %+v", got, c.Bundles[0])
	}
}

func TestDecodeJSON(t *testing.T) {
	data := `{"schema":"olm.package","name":"foo","defaultChannel":"stable"}
{
  "schema": "olm.channel", "package": "foo", "name": "stable",
  "entries": [
    {"name": "foo.v1"},
    {"name": "foo.v2", "replaces": "foo.v1", "skips": ["a", null]}
  ]
}{"schema":"olm.bundle","package":"foo","name":"foo.v2","image":"i",
"properties":[
  {"type":"olm.package","value":{"packageName":"foo","version":"2.0.0"}}
]}
`
	c, err := decodeFastAndReference(t, "cat.json", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	ch := c.Channels[0]
	if ch.Pos.Line != 2 || ch.Entries[0].Pos.Line != 5 || ch.Entries[1].Pos.Line != 6 {
		t.Errorf("channel at %s, entries at %s and %s", ch.Pos, ch.Entries[0].Pos, ch.Entries[1].Pos)
	}
	if !reflect.DeepEqual(ch.Entries[1].Skips, []string{"a", ""}) {
		t.Errorf("skips %q", ch.Entries[1].Skips)
	}
	if b := c.Bundles[0]; b.Pos.Line != 8 || b.Properties[0].Pos.Line != 10 {
		t.Errorf("bundle at %s, property at %s", b.Pos, b.Properties[0].Pos)
	}
}

func TestDecodeErrors(t *testing.T) {
	deep := strings.Repeat("[", 100000)
	for _, tc := range []struct{ name, data, want string }{
		{"bad YAML", "schema: olm.package\nname: [foo\n", "bad.yaml:1:"},
		{"bad YAML indentation", "schema: olm.package\nname: foo\n bar: x\n", "bad.yaml:3:"},
		{"not a mapping", "- a\n- b\n", "bad.yaml:1:"},
		{"no schema", "name: foo\n", "bad.yaml:1: object has no schema"},
		{"bad JSON", "{\"schema\": \"olm.package\",\n \"name\": }\n", "bad.yaml:2:"},
		{"bad JSON value", "{\"schema\": \"olm.package\"}\n[1]\n", "bad.yaml:2:"},
		{"wrong type", "schema: olm.channel\nname: [a]\npackage: p\n", "bad.yaml:2:"},
		{"binary", "\x00\x01\x02\xff\xfe garbage", "bad.yaml"},
		{"deep YAML flow", "schema: x\nname: " + deep, "bad.yaml"},
		{"deep YAML block", "schema: x\nname:\n" + strings.Repeat("- ", 50000) + "a\n", "bad.yaml"},
		{"deep JSON", "{\"a\":" + deep, "bad.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode("bad.yaml", []byte(tc.data))
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error %q, want prefix %q", err, tc.want)
			}
			decodeFastAndReference(t, "bad.yaml", []byte(tc.data))
		})
	}
}
