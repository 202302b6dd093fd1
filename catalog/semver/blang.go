package semver

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// The syntax of github.com/blang/semver/v4, which opm and OLM classic use
// for bundle versions and skipRange: CheckVersion accepts exactly what its
// Parse accepts, and a classic range error's Blang is ParseRange's text, so
// a catalog gets opm's verdict and opm's words.

const (
	semverNumbers  = "0123456789"
	semverAlphanum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + semverNumbers
)

func containsOnly(s, set string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(set, r) }) == -1
}

func hasLeadingZeroes(s string) bool { return len(s) > 1 && s[0] == '0' }

// CheckVersion reports why s is not a version blang/semver's Parse
// accepts, in blang's words (which opm prints for bundle versions).
func CheckVersion(s string) error {
	if s == "" {
		return errors.New("Version string empty")
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) != 3 {
		return errors.New("No Major.Minor.Patch elements found")
	}
	for i, name := range []string{"major", "minor"} {
		if err := checkNumber(parts[i], name); err != nil {
			return err
		}
	}
	patch := parts[2]
	var build, pre []string
	if i := strings.IndexRune(patch, '+'); i != -1 {
		build = strings.Split(patch[i+1:], ".")
		patch = patch[:i]
	}
	if i := strings.IndexRune(patch, '-'); i != -1 {
		pre = strings.Split(patch[i+1:], ".")
		patch = patch[:i]
	}
	if err := checkNumber(patch, "patch"); err != nil {
		return err
	}
	for _, p := range pre {
		if err := CheckPrerelease(p); err != nil {
			return err
		}
	}
	for _, b := range build {
		if b == "" {
			return errors.New("Buildmetadata is empty")
		}
		if !containsOnly(b, semverAlphanum) {
			return fmt.Errorf("Invalid character(s) found in build meta data %q", b)
		}
	}
	return nil
}

func checkNumber(s, name string) error {
	if !containsOnly(s, semverNumbers) {
		return fmt.Errorf("Invalid character(s) found in %s number %q", name, s)
	}
	if hasLeadingZeroes(s) {
		return fmt.Errorf("%s number must not contain leading zeroes %q", strings.ToUpper(name[:1])+name[1:], s)
	}
	if _, err := strconv.ParseUint(s, 10, 64); err != nil {
		return err
	}
	return nil
}

// CheckPrerelease reports why s is not one pre-release identifier, in
// blang's words.
func CheckPrerelease(s string) error {
	switch {
	case s == "":
		return errors.New("Prerelease is empty")
	case containsOnly(s, semverNumbers):
		if hasLeadingZeroes(s) {
			return fmt.Errorf("Numeric PreRelease version must not contain leading zeroes %q", s)
		}
		if _, err := strconv.ParseUint(s, 10, 64); err != nil {
			return err
		}
	case !containsOnly(s, semverAlphanum):
		return fmt.Errorf("Invalid character(s) found in prerelease %q", s)
	}
	return nil
}
