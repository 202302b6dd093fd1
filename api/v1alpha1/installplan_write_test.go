package v1alpha1

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Marshal must give yaml.v3's bytes, whichever way it takes.
func TestAppendPlanMatchesYAML(t *testing.T) {
	full := filledPlan()
	cases := []struct {
		name string
		plan *InstallPlan
		fast bool // written without yaml.v3
	}{
		{"sample", samplePlan(), false}, // its warning has ": "
		{"every field", full, true},
		{"no from, no lists", func() *InstallPlan {
			p := filledPlan()
			p.Spec.From, p.Spec.Dependencies, p.Spec.Warnings, p.Spec.Subscription.RequiredBy = nil, nil, nil, nil
			p.Spec.Subscription.File, p.Spec.Subscription.ServiceAccount, p.Spec.Path[0].Image = "", "", ""
			return p
		}(), true},
		{"versions", func() *InstallPlan {
			p := filledPlan()
			p.Spec.To.Version, p.Spec.Path[0].Version, p.Spec.Path[1].Version = "0.9.4", "1.0.0-rc.1+build.5", "4.18.0-202501010000"
			return p
		}(), true},
		{"a version yaml.v3 quotes", withVersion("1.0"), false},
		{"a timestamp-like version", withVersion("2001-12-14"), false},
		{"an old boolean", withVersion("yes"), false},
		{"an empty required field", func() *InstallPlan { p := filledPlan(); p.Spec.Catalog.Digest = ""; return p }(), false},
		{"a line break", func() *InstallPlan { p := filledPlan(); p.Spec.Warnings = []string{"one\ntwo"}; return p }(), false},
		// yaml.v3 does not fold long plain strings (its width is
		// unlimited): if a new version did, where it folds would depend on
		// the column the value starts at, and this case would go red.
		{"a long warning", func() *InstallPlan {
			p := filledPlan()
			p.Spec.Warnings = []string{strings.Repeat("x", 76) + " yy " + strings.Repeat("z", 80)}
			return p
		}(), true},
		{"an empty path", func() *InstallPlan { p := filledPlan(); p.Spec.Path = nil; return p }(), false},
		{"a trailing colon", func() *InstallPlan { p := filledPlan(); p.Spec.Package = "etcd:"; return p }(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			want, err := c.plan.marshalYAML()
			if err != nil {
				t.Fatal(err)
			}
			got, ok := appendPlan(nil, c.plan)
			if ok != c.fast {
				t.Errorf("written without yaml.v3: %v, want %v", ok, c.fast)
			}
			if ok && !bytes.Equal(got, want) {
				t.Errorf("appendPlan:\n%s\nyaml.v3:\n%s", got, want)
			}
			if m, err := c.plan.Marshal(); err != nil || !bytes.Equal(m, want) {
				t.Errorf("Marshal: %v\n%s\nyaml.v3:\n%s", err, m, want)
			}
		})
	}
}

func withVersion(v string) *InstallPlan {
	p := filledPlan()
	p.Spec.To.Version = v
	return p
}

// filledPlan sets every string field of a plan, found by reflection, to
// a distinct plain value, and every list to two items: a field added to
// the plan that appendPlan does not write turns the test above red.
func filledPlan() *InstallPlan {
	p := &InstallPlan{}
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.String:
			n++
			v.SetString(fmt.Sprintf("v%d.example/x-%d", n, n))
		case reflect.Struct:
			for i := range v.NumField() {
				fill(v.Field(i))
			}
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
			fill(v.Elem())
		case reflect.Slice:
			v.Set(reflect.MakeSlice(v.Type(), 2, 2))
			for i := range 2 {
				fill(v.Index(i))
			}
		default:
			panic(fmt.Sprintf("filledPlan: a %s field: teach appendPlan and this test", v.Kind()))
		}
	}
	fill(reflect.ValueOf(p).Elem())
	return p
}

// simplePlain must never say plain where yaml.v3 would quote.
func TestSimplePlain(t *testing.T) {
	for _, s := range []string{"etcd", "sha256:00", "quay.io/x/y@sha256:ab", "a-b_c.d/e+f=g", "Yes", "y", "null", "NULL", "on", "a:", "a: b", "a #b", "-a", "a b", "", "a\n", "ü"} {
		if simplePlain(s) && !yamlPlain(s) {
			t.Errorf("simplePlain(%q) but yaml.v3 quotes it", s)
		}
	}
}

func FuzzAppendPlan(f *testing.F) {
	for _, s := range []string{"etcd", "0.9.4", "1.0", "yes", "a: b", "sha256:00", "", "-", "x\ny", "'q'", "#c", "a #b", "on", "2001-12-14", "1_000", "0x1F", ".inf"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, name, version string) {
		p := filledPlan()
		p.Spec.To.Name, p.Spec.To.Version = name, version
		p.Spec.Path[1].Version, p.Spec.Warnings[0] = version, name
		want, err := p.marshalYAML()
		if err != nil {
			return // yaml.v3 refuses it: so does Marshal
		}
		got, err := p.Marshal()
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("Marshal: %v\n%s\nyaml.v3:\n%s", err, got, want)
		}
		for _, s := range []string{name, version} {
			if simplePlain(s) && !yamlPlain(s) {
				t.Fatalf("simplePlain(%q) but yaml.v3 quotes it", s)
			}
		}
	})
}
