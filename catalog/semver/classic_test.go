package semver

import (
	"strings"
	"testing"
)

func TestParseClassicRange(t *testing.T) {
	tests := []struct {
		in      string
		yes, no []string
		err     string
	}{
		{in: ">=4.1.0 <4.1.2", yes: []string{"4.1.0", "4.1.1", "4.1.1+build"}, no: []string{"4.1.2", "4.0.9"}},
		{in: "< 1.0.0", yes: []string{"0.0.0", "0.9.9"}, no: []string{"1.0.0"}},
		{in: ">= 1.0.0 <2.0.0", yes: []string{"1.0.0"}, no: []string{"2.0.0"}},
		{in: "< 1.0.0 !0.0.0", yes: []string{"0.0.1"}, no: []string{"0.0.0", "1.0.0"}},
		{in: "<=0.0.1", yes: []string{"0.0.1", "0.0.1-rc.1"}, no: []string{"0.0.2"}},
		{in: "1.0.0", yes: []string{"1.0.0", "1.0.0+5"}, no: []string{"1.0.1"}},
		{in: "==1.0.0", yes: []string{"1.0.0"}},
		{in: "!=1.0.0", yes: []string{"1.0.1"}, no: []string{"1.0.0"}},
		// Pre-releases by precedence alone, unlike v1.
		{in: ">=1.0.0 <2.0.0", yes: []string{"1.5.0-alpha", "1.0.0"}, no: []string{"1.0.0-alpha", "2.0.0"}},
		{in: "<2.0.0", yes: []string{"2.0.0-rc.1"}},
		{in: "<1.0.0 || >=3.0.0", yes: []string{"0.1.0", "3.0.0"}, no: []string{"2.0.0"}},
		// Wildcards, blang's way.
		{in: "1.x", yes: []string{"1.0.0", "1.9.9"}, no: []string{"2.0.0", "0.9.0"}},
		{in: "1.2.x", yes: []string{"1.2.0", "1.2.9"}, no: []string{"1.3.0"}},
		{in: ">1.2.x", yes: []string{"1.3.0"}, no: []string{"1.2.5"}},
		{in: "<=1.x", yes: []string{"1.9.0"}, no: []string{"2.0.0"}},
		{in: "!=1.2.x", no: []string{"1.1.0", "1.2.1", "1.4.0"}},
		{in: "1.x.x", yes: []string{"1.0.5"}, no: []string{"1.1.0"}},
		// What classic refuses.
		{in: "<1.2.3||>2.3.4", err: "not strict semver"},
		{in: ">=v1.2.3", err: `unknown operator ">=v"`},
		{in: ">=1.2", err: "not strict semver"},
		{in: "~1.2.3", err: `unknown operator "~"`},
		{in: "^1.2.3", err: `unknown operator "^"`},
		{in: ">=1.0.0,<2.0.0", err: "not strict semver"},
		{in: "1.X", err: "not strict semver"},
		{in: "*", err: "no comparison"}, // one-character terms are dropped
		{in: ">=*", err: `">=*" has no version`},
		{in: "", err: "no comparison"},
		{in: "|| 1.0.0", err: `starts with "||"`},
		{in: "1.0.0 ||", err: `ends with "||"`},
		{in: "01.0.0", err: "not strict semver"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			r, err := ParseClassicRange(tt.in)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), tt.in) {
					t.Fatalf("ParseClassicRange(%q) error = %v, want it to name the input and contain %q", tt.in, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Syntax() != Classic || r.Any() {
				t.Errorf("Syntax/Any = %v/%v", r.Syntax(), r.Any())
			}
			check(t, r, tt.yes, tt.no)
		})
	}
}

func TestReleaseParsing(t *testing.T) {
	tests := []struct {
		version, release string
		explicit         bool
		wantV, wantR     string
		err              bool
	}{
		{version: "1.0.0-pre+1.alpha.2", wantV: "1.0.0-pre", wantR: "1.alpha.2"},
		{version: "abcd", err: true},
		{version: "1.0.0+001", wantV: "1.0.0+001"},
		{version: "1.0.0+2", wantV: "1.0.0", wantR: "2"},
		{version: "1.0.0+ignored", release: "2", explicit: true, wantV: "1.0.0+ignored", wantR: "2"},
		{version: "2.1.0", release: "1.alpha.3", explicit: true, wantV: "2.1.0", wantR: "1.alpha.3"},
		{version: "1.0.0", release: "001", explicit: true, err: true},
		{version: "1.0.0+2", release: "", explicit: true, wantV: "1.0.0+2"},
	}
	for _, tt := range tests {
		t.Run(tt.version+"/"+tt.release, func(t *testing.T) {
			var vr VersionRelease
			var err error
			if tt.explicit {
				vr, err = ParseExplicitRelease(tt.version, tt.release)
			} else {
				vr, err = ParseVersionRelease(tt.version)
			}
			if tt.err {
				if err == nil {
					t.Fatalf("want an error, got %v", vr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if vr.Version.String() != tt.wantV || vr.Release.String() != tt.wantR {
				t.Errorf("got %s / %q, want %s / %q", vr.Version, vr.Release, tt.wantV, tt.wantR)
			}
		})
	}
}

func TestVersionReleaseCompare(t *testing.T) {
	order := []string{"0.0.1", "1.0.0-alpha", "1.0.0-alpha+1", "1.0.0-alpha+2", "1.0.0", "1.0.0+1", "1.0.0+1.1", "1.0.0+2", "1.0.0+10", "1.0.0+a", "1.0.1"}
	for i := range order {
		for j := range order {
			a, err := ParseVersionRelease(order[i])
			if err != nil {
				t.Fatal(err)
			}
			b, _ := ParseVersionRelease(order[j])
			want := 0
			if i < j {
				want = -1
			} else if i > j {
				want = 1
			}
			if got := a.Compare(b); got != want {
				t.Errorf("Compare(%s, %s) = %d, want %d", order[i], order[j], got, want)
			}
		}
	}
}

// TestClassicRangeVerdicts pins which skipRange strings opm accepts; the
// catalog's validation relies on ParseClassicRange for that verdict.
func TestClassicRangeVerdicts(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{">=1.0.0 <2.0.0", true},
		{">= 1.0.0 < 2.0.0", true},
		{"<1.2.3 || >=2.0.0", true},
		{"1.x", true},
		{">1.2.x", true},
		{"!=1.0.0", true},
		{">=4.5.0-0 <4.6.0", true},
		{">v0.1.0", false},
		{">1.00.1", false},
		{">=1.0 <2.0.0", false},
		{"~1.2.3", false},
		{"|| 1.0.0", false},
		{"1.0.0 ||", false},
		{">=abc", false},
		{">1.x.1", false},
	} {
		_, err := ParseClassicRange(tc.in)
		if (err == nil) != tc.ok {
			t.Errorf("ParseClassicRange(%q) error = %v, want ok=%v", tc.in, err, tc.ok)
		}
	}
}
