package semver

import (
	"fmt"
	"strings"
	"testing"

	mm "github.com/Masterminds/semver/v3"
)

// versionGrid is every version the seed-table equivalences are checked on.
func versionGrid() []*Version {
	var out []*Version
	for major := uint64(0); major <= 4; major++ {
		for minor := uint64(0); minor <= 14; minor++ {
			for patch := uint64(0); patch <= 4; patch++ {
				out = append(out, mm.New(major, minor, patch, "", ""))
			}
			out = append(out, mm.New(major, minor, 0, "rc.1", ""), mm.New(major, minor, 1, "", "build.5"))
		}
	}
	return out
}

// TestSeedTables checks every row of the four tables of OLM v1's "Support
// for version ranges" (seed 001): the left side matches exactly the
// versions the right side matches.
func TestSeedTables(t *testing.T) {
	rows := []struct{ table, in, same string }{
		// Table 1 is the operator list; each is exercised here.
		{"basic", "=1.11.1", ">=1.11.1, <=1.11.1"},
		{"basic", "!=1.11.1", "<1.11.1 || >1.11.1"},
		{"basic", ">1.11.1", ">=1.11.2"},
		{"basic", "<1.11.1", "<=1.11.0"},
		{"basic", ">=1.11, <1.13", ">=1.11.0 <1.13.0"},
		{"basic", "<=1.11.1", "<1.11.2"},
		// Table 2: wildcards.
		{"wildcard", "1.11.x", ">=1.11.0, <1.12.0"},
		{"wildcard", ">=1.12.X", ">=1.12.0"},
		{"wildcard", "<=2.x", "<3"},
		{"wildcard", "*", ">=0.0.0"},
		// Table 3: tilde.
		{"tilde", "~1.11.0", ">=1.11.0, <1.12.0"},
		{"tilde", "~1", ">=1, <2"},
		{"tilde", "~1.12", ">=1.12, <1.13"},
		{"tilde", "~1.12.x", ">=1.12.0, <1.13.0"},
		{"tilde", "~1.x", ">=1, <2"},
		// Table 4: caret.
		{"caret", "^0", ">=0.0.0, <1.0.0"},
		{"caret", "^0.0", ">=0.0.0, <0.1.0"},
		{"caret", "^0.0.3", ">=0.0.3, <0.0.4"},
		{"caret", "^0.2", ">=0.2.0, <0.3.0"},
		{"caret", "^0.2.3", ">=0.2.3, <0.3.0"},
		{"caret", "^1.2.x", ">= 1.2.0, < 2.0.0"},
		{"caret", "^1.2.3", ">= 1.2.3, < 2.0.0"},
		{"caret", "^2.x", ">= 2.0.0, < 3"},
		{"caret", "^2.3", ">= 2.3, < 3"},
	}
	grid := versionGrid()
	for _, row := range rows {
		t.Run(row.table+"/"+row.in, func(t *testing.T) {
			in, err := ParseRange(row.in)
			if err != nil {
				t.Fatal(err)
			}
			same, err := ParseRange(row.same)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, v := range grid {
				got, want := in.Contains(v), same.Contains(v)
				if got != want {
					t.Errorf("%s contains %s = %v, %s says %v", row.in, v, got, row.same, want)
				}
				if got {
					n++
				}
			}
			if n == 0 {
				t.Errorf("%s matches nothing in the grid", row.in)
			}
		})
	}
}

func TestParseRange(t *testing.T) {
	tests := []struct {
		in      string
		yes, no []string
		err     string
	}{
		{in: "", yes: []string{"0.0.0", "1.0.0-rc.1", "9.9.9"}},
		{in: "1.0.0+1", yes: []string{"1.0.0", "1.0.0+2", "1.0.0+1"}, no: []string{"1.0.1"}},
		{in: ">=1.0.0", yes: []string{"1.0.0", "2.0.0"}, no: []string{"0.9.9", "1.1.0-rc.1"}},
		{in: ">=1.1.0-0", yes: []string{"1.1.0-rc.1", "1.2.0"}},
		{in: ">=v1.2.3", yes: []string{"1.2.3"}},
		{in: "=>1.2.3", yes: []string{"1.2.3"}, no: []string{"1.2.2"}},
		{in: "=<1.2.3", yes: []string{"1.2.3"}, no: []string{"1.2.4"}},
		{in: "~>1.2.3", yes: []string{"1.2.9"}, no: []string{"1.3.0"}},
		{in: "<1.2.3||>2.3.4", yes: []string{"1.0.0", "3.0.0"}, no: []string{"2.0.0"}},
		{in: ">1.0.0,<1.2.3 || >2.1.0", yes: []string{"1.1.0", "2.2.0"}, no: []string{"2.0.0"}},
		{in: "<1.0.0 >=2.0.0", no: []string{"0.1.0", "2.0.0"}},
		{in: "1.2.3 - 2.3.4", err: "hyphen ranges"},
		{in: ">1.2.3 && <2.3.4", err: `"&&" is not an operator`},
		{in: "01.2.3", err: `"01.2.3" is not a comparison`},
		{in: ">>1.2.3", err: `">>1.2.3" is not a comparison`},
		{in: "not-a-valid-version", err: `invalid version range "not-a-valid-version"`},
		{in: strings.Repeat("1", 65), err: "Too long: may not be more than 64 characters"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := ParseRange(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseRange(%q) error = %v, want it to contain %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.String() != tt.in || r.Syntax() != V1 {
				t.Errorf("String/Syntax = %q/%v", r.String(), r.Syntax())
			}
			check(t, r, tt.yes, tt.no)
		})
	}
}

func check(t *testing.T, r Range, yes, no []string) {
	t.Helper()
	for _, s := range yes {
		if !r.Contains(mm.MustParse(s)) {
			t.Errorf("%q does not contain %s", r, s)
		}
	}
	for _, s := range no {
		if r.Contains(mm.MustParse(s)) {
			t.Errorf("%q contains %s", r, s)
		}
	}
	if r.Contains(nil) {
		t.Errorf("%q contains nil", r)
	}
}

func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"", "1.2.3", ">=1.0.0 <2.0.0", "^0.2", "~1.x", "<1||>2", "1.2.3 - 2", ">= v1.2.3-rc.1+b"} {
		f.Add(s)
	}
	v := mm.MustParse("1.2.3")
	f.Fuzz(func(t *testing.T, s string) {
		if r, err := ParseRange(s); err == nil {
			r.Contains(v)
			_ = r.String()
		}
		if r, err := ParseClassicRange(s); err == nil {
			r.Contains(v)
		}
	})
}

func ExampleParseRange() {
	r, err := ParseRange(">=1.11, <1.13")
	if err != nil {
		panic(err)
	}
	for _, v := range []string{"1.10.9", "1.11.0", "1.12.7", "1.13.0", "1.12.8-rc.1"} {
		fmt.Println(v, r.Contains(mm.MustParse(v)))
	}
	// Output:
	// 1.10.9 false
	// 1.11.0 true
	// 1.12.7 true
	// 1.13.0 false
	// 1.12.8-rc.1 false
}
