package semver

import (
	"fmt"
	"strings"

	mm "github.com/Masterminds/semver/v3"
)

// Release orders re-publications of one version: dot-separated identifiers,
// numeric ones without leading zeros, compared like pre-release identifiers.
// An empty release sorts before every other release.
type Release []string

// ParseRelease parses a release; "" is the empty release.
func ParseRelease(s string) (Release, error) {
	if s == "" {
		return nil, nil
	}
	parts := strings.Split(s, ".")
	for i, p := range parts {
		if err := checkIdentifier(p); err != nil {
			return nil, fmt.Errorf("invalid release %q: segment %d: %w", s, i, err)
		}
	}
	return Release(parts), nil
}

func checkIdentifier(p string) error {
	if p == "" {
		return fmt.Errorf("empty identifier")
	}
	numeric := true
	for _, c := range p {
		switch {
		case c >= '0' && c <= '9':
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c == '-':
			numeric = false
		default:
			return fmt.Errorf("%q has a character other than [0-9A-Za-z-]", p)
		}
	}
	if numeric && len(p) > 1 && p[0] == '0' {
		return fmt.Errorf("%q is a number with a leading zero", p)
	}
	return nil
}

// String writes the release as dot-separated identifiers.
func (r Release) String() string { return strings.Join(r, ".") }

// Compare returns -1, 0 or 1 as r sorts before, with or after o.
func (r Release) Compare(o Release) int {
	switch {
	case len(r) == 0 && len(o) == 0:
		return 0
	case len(r) == 0:
		return -1
	case len(o) == 0:
		return 1
	}
	a, _ := mm.NewVersion("0.0.0-" + r.String())
	b, _ := mm.NewVersion("0.0.0-" + o.String())
	return a.Compare(b)
}

// VersionRelease is a bundle's version and release, the pair OLM v1 orders
// bundles by.
type VersionRelease struct {
	// Version keeps its build metadata only when that metadata is not a
	// valid release.
	Version *Version
	Release Release
}

// LegacyVersionRelease splits a registry+v1 bundle version: build metadata
// that is a valid release becomes the release ("1.0.0+2" is 1.0.0 release
// 2); other build metadata stays on the version ("1.0.0+001").
func LegacyVersionRelease(v *Version) VersionRelease {
	if v == nil || v.Metadata() == "" {
		return VersionRelease{Version: v}
	}
	rel, err := ParseRelease(v.Metadata())
	if err != nil {
		return VersionRelease{Version: v}
	}
	return VersionRelease{Version: mm.New(v.Major(), v.Minor(), v.Patch(), v.Prerelease(), ""), Release: rel}
}

// ParseVersionRelease parses a registry+v1 bundle version (strict semver)
// and splits its release out of the build metadata.
func ParseVersionRelease(version string) (VersionRelease, error) {
	v, err := mm.StrictNewVersion(version)
	if err != nil {
		return VersionRelease{}, fmt.Errorf("invalid version %q: %w", version, err)
	}
	return LegacyVersionRelease(v), nil
}

// ParseExplicitRelease parses a version and a release given apart (the
// olm.package release field, a ClusterExtension's installed release). The
// version keeps its build metadata; "" is an empty release.
func ParseExplicitRelease(version, release string) (VersionRelease, error) {
	v, err := mm.StrictNewVersion(version)
	if err != nil {
		return VersionRelease{}, fmt.Errorf("invalid version %q: %w", version, err)
	}
	rel, err := ParseRelease(release)
	if err != nil {
		return VersionRelease{}, err
	}
	return VersionRelease{Version: v, Release: rel}, nil
}

// Compare orders by version (semver precedence, build metadata ignored),
// then by release. A missing version sorts first.
func (vr VersionRelease) Compare(o VersionRelease) int {
	switch {
	case vr.Version == nil && o.Version == nil:
		return 0
	case vr.Version == nil:
		return -1
	case o.Version == nil:
		return 1
	}
	if d := vr.Version.Compare(o.Version); d != 0 {
		return d
	}
	return vr.Release.Compare(o.Release)
}

// String writes the version with the release as build metadata, the
// registry+v1 spelling ("1.0.0+2").
func (vr VersionRelease) String() string {
	if vr.Version == nil {
		return ""
	}
	if len(vr.Release) == 0 {
		return vr.Version.String()
	}
	return vr.Version.String() + "+" + vr.Release.String()
}
