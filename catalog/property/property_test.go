package property

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	at := Pos{File: "catalog.yaml", Line: 7}
	prop := func(typ, value string) Property { return Property{Pos: at, Type: typ, Value: YAMLValue([]byte(value))} }
	for _, tc := range []struct {
		name    string
		props   []Property
		check   func(t *testing.T, s Set)
		wantErr string
	}{
		{
			name:  "package and gvks",
			props: []Property{prop(TypePackage, "{packageName: etcd, version: 0.9.4}"), prop(TypeGVK, "{group: etcd.io, kind: Cluster, version: v1}"), prop(TypeGVKRequired, "{group: b.io, kind: B, version: v1}")},
			check: func(t *testing.T, s Set) {
				if len(s.Packages) != 1 || s.Packages[0].Version != "0.9.4" || s.GVKs[0].String() != "etcd.io/v1/Cluster" || len(s.GVKsRequired) != 1 {
					t.Errorf("got %+v", s)
				}
			},
		},
		{
			// Unquoted, 4.20 is the YAML float 4.2, as opm and OLM read it too:
			// catalogs must quote it (docs/compatibility.md).
			name:  "maxOpenShiftVersion as a string or a number",
			props: []Property{prop(TypeMaxOpenShiftVersion, `"4.19"`), prop(TypeMaxOpenShiftVersion, "4.20")},
			check: func(t *testing.T, s Set) {
				if s.MaxOpenShiftVersion != "4.2" {
					t.Errorf("maxOpenShiftVersion %q", s.MaxOpenShiftVersion)
				}
			},
		},
		{
			name:  "kubeversion, deprecated and lazy types",
			props: []Property{prop(TypeKubeVersion, `{version: "1.16.0"}`), prop(TypeDeprecated, "{}"), prop(TypeCSVMetadata, "{displayName: x}"), prop(TypeBundleObject, "{data: e30=}"), prop("vendor.example/x", "[1, 2]")},
			check: func(t *testing.T, s Set) {
				if s.KubeVersion != "1.16.0" || !s.Deprecated || s.CSVMetadata != 2 || len(s.BundleObjects) != 1 || s.BundleObjects[0] != 3 {
					t.Errorf("got %+v", s)
				}
			},
		},
		{
			name:  "a compound constraint",
			props: []Property{prop(TypeConstraint, "{failureMessage: m, all: {constraints: [{gvk: {group: a, kind: K, version: v1}}, {not: {constraints: [{package: {packageName: p, versionRange: '>=1.0.0'}}]}}]}}")},
			check: func(t *testing.T, s Set) {
				c := s.Constraints[0]
				if c.FailureMessage != "m" || c.All == nil || len(c.All.Constraints) != 2 || c.All.Constraints[1].Not == nil {
					t.Errorf("got %+v", c)
				}
			},
		},
		{name: "a package value of the wrong type", props: []Property{prop(TypePackage, "[a, b]")}, wantErr: `catalog.yaml:7: parse property "olm.package"`},
		{name: "a constraint with two predicates", props: []Property{prop(TypeConstraint, "{gvk: {group: a, kind: K, version: v1}, cel: {rule: 'true'}}")}, wantErr: "more than one predicate"},
		{name: "a constraint with none", props: []Property{prop(TypeConstraint, "{failureMessage: m}")}, wantErr: "no predicate"},
		{name: "an empty compound", props: []Property{prop(TypeConstraint, "{any: {constraints: []}}")}, wantErr: "has no constraints"},
		{name: "an empty cel rule", props: []Property{prop(TypeConstraint, "{cel: {rule: ' '}}")}, wantErr: "empty rule"},
		{name: "a constraint over 64 KiB", props: []Property{prop(TypeConstraint, "{cel: {rule: '"+strings.Repeat("a", MaxConstraintSize)+"'}}")}, wantErr: "more than the 65536 allowed"},
		{name: "maxOpenShiftVersion neither string nor number", props: []Property{prop(TypeMaxOpenShiftVersion, "{v: 1}")}, wantErr: "want a string or a number"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, errs := Parse(tc.props)
			if tc.wantErr != "" {
				if len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.wantErr) {
					t.Fatalf("errors %v, want one containing %q", errs, tc.wantErr)
				}
				return
			}
			if len(errs) > 0 {
				t.Fatalf("unexpected errors: %v", errs)
			}
			tc.check(t, s)
		})
	}
}

func TestConstraintDepthIsBounded(t *testing.T) {
	rule := "{cel: {rule: 'true'}}"
	for range maxConstraintDepth + 2 {
		rule = "{not: {constraints: [" + rule + "]}}"
	}
	if _, err := ParseConstraint(YAMLValue([]byte(rule))); err == nil || !strings.Contains(err.Error(), "nested deeper") {
		t.Fatalf("error %v, want a depth error", err)
	}
}

func TestDecodeBundleObject(t *testing.T) {
	b, err := DecodeBundleObject(JSONValue([]byte(`{"data":"eyJraW5kIjoiQ29uZmlnTWFwIn0="}`)))
	if err != nil || string(b) != `{"kind":"ConfigMap"}` {
		t.Fatalf("got %q, %v", b, err)
	}
	if _, err := DecodeBundleObject(JSONValue([]byte(`{"data":"!!"}`))); err == nil {
		t.Fatal("want an error for bad base64")
	}
}

func TestValueDetach(t *testing.T) {
	buf := []byte(`{"small":1,"large":"` + strings.Repeat("x", 64) + `"}`)
	small, large := JSONValue(buf[10:11]), JSONValue(buf[20:])
	src := strings.NewReader(string(buf))
	if d := small.Detach(buf, src, 32); d.ref != nil || &d.raw[0] == &buf[10] {
		t.Error("a small value must be copied")
	}
	d := large.Detach(buf, src, 32)
	if d.ref == nil || d.raw != nil || d.Len() != len(buf)-20 {
		t.Fatalf("a large value must become a reference: %+v", d)
	}
	if got, err := d.Bytes(); err != nil || string(got) != string(buf[20:]) {
		t.Fatalf("read back %q, %v", got, err)
	}
	other := JSONValue([]byte(`"elsewhere"`))
	if d := other.Detach(buf, src, 1); d.ref != nil {
		t.Error("a value outside the buffer is kept as it is")
	}
}

// FuzzParse feeds arbitrary YAML and JSON to every typed property parser:
// they must never panic, whatever the input.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"{packageName: etcd, version: 0.9.4}", `{"group":"a","kind":"K","version":"v1"}`, "4.19",
		"{all: {constraints: [{cel: {rule: 'true'}}]}}", "{not: {constraints: [{not: {constraints: []}}]}}", "&a [*a]", "{data: e30=}"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	types := []string{TypePackage, TypeGVK, TypePackageRequired, TypeGVKRequired, TypeConstraint, TypeMaxOpenShiftVersion, TypeKubeVersion, TypeBundleObject, TypeCSVMetadata}
	f.Fuzz(func(t *testing.T, value string, yaml bool) {
		v := JSONValue([]byte(value))
		if yaml {
			v = YAMLValue([]byte(value))
		}
		props := make([]Property, len(types))
		for i, typ := range types {
			props[i] = Property{Type: typ, Value: v}
		}
		Parse(props)
		DecodeBundleObject(v)
		v.MarshalJSON()
	})
}
