package fbc

import (
	"reflect"
	"testing"
)

// FuzzDecode checks that the fast paths never panic and agree with the
// reference decoders whenever those succeed. Plain go test runs the seeds.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		yamlCatalog,
		"schema: olm.package\nname: foo\n",
		"---\n---\nschema: x\nname: 'a''b'\n",
		"schema: olm.channel\nname: c\npackage: p\nentries:\n- name: a\n  skips:\n  - b\n",
		"schema: olm.bundle\nname: b\nproperties:\n- type: olm.gvk\n  value: {group: g, kind: K, version: v1}\n- value:\n    x: \"multi\n  line\"\n  type: olm.csv.metadata\n",
		"schema: olm.package\nname: |\n  a\n  b\ndescription: >-\n  c\n\n  d\n",
		`{"schema":"olm.package","name":"a"}{"schema":"olm.channel","name":"c","package":"a","entries":[{"name":"x"}]}`,
		"schema: x\nname: \"\\x41\\u00e9\\\n  b\"\n",
		"schema: olm.package\r\nname: foo\r\n",
		"\ufeffschema: olm.package\nname: foo\n",
	} {
		f.Add([]byte(s))
	}
	for _, s := range duplicateSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		strictFast = true
		defer func() { strictFast = false }()
		if isJSON(data) {
			ref, refErr := decodeJSONReference("f", data)
			fast, ok := decodeJSONFast("f", data)
			if refErr == nil && ok {
				flattenNestedPos(t, fast)
				if !reflect.DeepEqual(canonical(t, fast), canonical(t, ref)) {
					t.Fatalf("fast JSON differs from the reference")
				}
			}
			return
		}
		ref, refErr := decodeYAMLReference("f", data)
		fast, ok := decodeYAMLFast("f", data)
		if ok && !eligibleByRune(data) {
			t.Fatalf("the fast path took a file with bytes it leaves to the reference decoder")
		}
		if refErr == nil && ok {
			if a, b := canonical(t, fast), canonical(t, ref); !reflect.DeepEqual(a, b) {
				diffFirst(t, a, b)
				t.Fatalf("fast YAML differs from the reference")
			}
		}
	})
}
