package semver

import (
	"errors"
	"testing"

	mm "github.com/Masterminds/semver/v3"
)

func FuzzCheckVersion(f *testing.F) {
	for _, s := range []string{"1.0.0", "1.0.0-rc.1+b", "01.0.0", "1.0", "1.0.0-", "1.0.0+"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// blang decides what a version is (opm's verdict); Masterminds
		// builds the value compared against, so it must take every version
		// blang takes. The reverse need not hold: blang refuses a numeric
		// pre-release past uint64 that Masterminds keeps.
		_, mmErr := mm.StrictNewVersion(s)
		if blangErr := CheckVersion(s); blangErr == nil && mmErr != nil {
			t.Fatalf("%q: blang accepts it, Masterminds says %v", s, mmErr)
		}
	})
}

// FuzzParseClassicRange: every failure is a *RangeError with both
// wordings, and nothing panics.
func FuzzParseClassicRange(f *testing.F) {
	for _, s := range []string{"<1.0.0", ">=1.0.0 <2.0.0", "> 1.0.0", "1.x", ">=1.2.x <2.0.0",
		"1.0.0 || 2.0.0", "!=1.2.x", ">v0.1.0", ">1.00.1", "~1.2.3", "1.0.0 ||", ">1.x.1", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, err := ParseClassicRange(s)
		if err == nil {
			return
		}
		var re *RangeError
		if !errors.As(err, &re) || re.Blang() == "" || re.Error() == "" {
			t.Fatalf("%q: error %v is not a RangeError with both wordings", s, err)
		}
	})
}
