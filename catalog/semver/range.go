package semver

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	mm "github.com/Masterminds/semver/v3"
)

// Version is the version type ranges test: Masterminds semver, the type the
// catalog model carries.
type Version = mm.Version

// MaxRangeLength is the longest OLM v1 version range the v1 API admits.
const MaxRangeLength = 64

// Syntax says which language a Range was written in.
type Syntax int

// The range syntaxes.
const (
	// V1 is OLM v1's ClusterExtension version syntax (Masterminds).
	V1 Syntax = iota
	// Classic is OLM classic's skipRange / versionRange syntax (blang).
	Classic
)

// String names the syntax: "v1" or "classic".
func (s Syntax) String() string {
	if s == Classic {
		return "classic"
	}
	return "v1"
}

// Range is a parsed version range. The zero Range, and the Range of an
// empty string, contains every version.
type Range struct {
	text   string
	syntax Syntax
	v1     *mm.Constraints
	or     [][]comparator // classic: OR of AND groups
}

// Contains reports whether v is in the range. A nil version is in no range.
func (r Range) Contains(v *Version) bool {
	if v == nil {
		return false
	}
	switch {
	case r.v1 != nil:
		return r.v1.Check(v)
	case r.or != nil:
		for _, and := range r.or {
			if allMatch(and, v) {
				return true
			}
		}
		return false
	}
	return true
}

// Any reports whether the range contains every version (it was empty).
func (r Range) Any() bool { return r.v1 == nil && r.or == nil }

// String returns the range as written.
func (r Range) String() string { return r.text }

// Syntax returns the language the range was written in.
func (r Range) Syntax() Syntax { return r.syntax }

// v1Grammar is the expression grammar the OLM v1 API admits for
// spec.source.catalog.version, quirks included (a minor "*" only matches
// through the optional patch group). Masterminds alone is laxer: it takes
// hyphen ranges and leading zeros, which the API refuses. The patterns are
// compiled on first use: most runs (validate, list) never parse a v1 range,
// and compiling them cost every command ~120 KB and 700 allocations at start.
var v1Grammar = lazyRegexp(`^(\s*(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|[x|X|\*])(\.(0|[1-9]\d*|x|X|\*]))?(\.(0|[1-9]\d*|x|X|\*))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*)((?:\s+|,\s*|\s*\|\|\s*)(=||!=|>|<|>=|=>|<=|=<|~|~>|\^)\s*(v?(0|[1-9]\d*|x|X|\*])(\.(0|[1-9]\d*|x|X|\*))?(\.(0|[1-9]\d*|x|X|\*]))?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?)\s*)*$`)

// v1Term is one comparison of the v1 grammar, used to point at the bad
// part of a rejected range.
var v1Term = lazyRegexp(`^(=|!=|>|<|>=|=>|<=|=<|~|~>|\^)?\s*v?(0|[1-9]\d*|[xX*])(\.(0|[1-9]\d*|[xX*]))?(\.(0|[1-9]\d*|[xX*]))?(-[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?(\+[0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*)?$`)

var (
	v1Split = lazyRegexp(`\s*\|\|\s*|\s*,\s*|\s+`)
	opSpace = lazyRegexp(`([<>=!~^]+)\s+`)
)

// lazyRegexp compiles pattern the first time the returned function is called.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// ParseRange parses an OLM v1 version range. "" means any version. A bare
// version ("1.2.3") pins that version, whatever its build metadata.
func ParseRange(s string) (Range, error) {
	r := Range{text: s, syntax: V1}
	if s == "" {
		return r, nil
	}
	if len(s) > MaxRangeLength {
		return Range{}, fmt.Errorf("invalid version range %q: Too long: may not be more than %d characters", s, MaxRangeLength)
	}
	if !v1Grammar().MatchString(s) {
		return Range{}, fmt.Errorf("invalid version range %q: %s", s, v1Problem(s))
	}
	c, err := mm.NewConstraint(s)
	if err != nil {
		return Range{}, fmt.Errorf("invalid version range %q: %w", s, err)
	}
	r.v1 = c
	return r, nil
}

// v1Problem says what is wrong with a range the v1 grammar refuses.
func v1Problem(s string) string {
	switch {
	case strings.Contains(s, "&&"):
		return `"&&" is not an operator: use a space or "," for AND`
	case strings.Contains(s, " - "):
		return `hyphen ranges ("1.2.3 - 2.3.4") are not supported: write ">=1.2.3, <=2.3.4"`
	case strings.TrimSpace(s) == "":
		return "no comparison"
	}
	joined := opSpace().ReplaceAllString(strings.TrimSpace(s), "$1")
	for _, t := range v1Split().Split(joined, -1) {
		if t == "" {
			return `empty comparison (a separator without a version on one side)`
		}
		if !v1Term().MatchString(t) {
			return fmt.Sprintf("%q is not a comparison: want an operator (= != > < >= <= ~ ^) and a version like 1.2.3, 1.2.x or 1.x, with no leading zeros", t)
		}
	}
	return `not a version expression: comparisons are joined by a space or "," (AND) or "||" (OR)`
}
