package semver

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	mm "github.com/Masterminds/semver/v3"
)

// ParseClassicRange parses an OLM classic range (skipRange,
// olm.package.required versionRange) with the semantics of blang/semver's
// ParseRange, which OLM classic and operator-controller's skipRange check
// use: terms joined by spaces are ANDed, " || " ORs groups, each term is an
// operator (= == != ! > >= < <=, none meaning =) and a strict version, and
// "1.x" / "1.2.x" expand to the versions they cover. Errors are a
// *RangeError, checked in ParseRange's order.
func ParseClassicRange(s string) (Range, error) {
	groups, err := splitOr(splitAndTrim(s))
	if err != nil {
		return Range{}, err.in(s)
	}
	r := Range{text: s, syntax: Classic, or: make([][]comparator, 0, len(groups))}
	for _, g := range groups {
		terms, err := expandWildcards(g)
		if err != nil {
			return Range{}, err.in(s)
		}
		and := make([]comparator, 0, len(terms))
		for _, t := range terms {
			c, err := parseComparator(t)
			if err != nil {
				return Range{}, err.in(s)
			}
			and = append(and, c)
		}
		r.or = append(r.or, and)
	}
	return r, nil
}

// RangeError says why a classic range does not parse: Error in words for
// people, Blang in blang/semver's own, which opm prints.
type RangeError struct {
	Range string
	syntaxError
}

func (e *RangeError) Error() string { return fmt.Sprintf("invalid range %q: %s", e.Range, e.msg) }

// Blang is blang/semver's message for the same fault.
func (e *RangeError) Blang() string { return e.blang }

func (e *RangeError) Unwrap() error { return e.err }

// syntaxError is a fault in one part of a range, in both wordings.
type syntaxError struct {
	msg, blang string
	err        error
}

func (e *syntaxError) in(rng string) *RangeError { return &RangeError{Range: rng, syntaxError: *e} }

type op int

const (
	opEQ op = iota
	opNE
	opGT
	opGE
	opLT
	opLE
)

type comparator struct {
	op op
	v  *mm.Version
}

func (c comparator) match(v *mm.Version) bool {
	d := v.Compare(c.v) // semver precedence: build metadata ignored
	switch c.op {
	case opEQ:
		return d == 0
	case opNE:
		return d != 0
	case opGT:
		return d > 0
	case opGE:
		return d >= 0
	case opLT:
		return d < 0
	default:
		return d <= 0
	}
}

func allMatch(and []comparator, v *mm.Version) bool {
	for _, c := range and {
		if !c.match(v) {
			return false
		}
	}
	return true
}

var classicOps = map[string]op{
	"": opEQ, "=": opEQ, "==": opEQ,
	"!": opNE, "!=": opNE,
	">": opGT, ">=": opGE,
	"<": opLT, "<=": opLE,
}

// splitOr splits the terms of a range into OR groups.
func splitOr(parts []string) ([][]string, *syntaxError) {
	var groups [][]string
	last := 0
	for i, p := range parts {
		if p == "||" {
			if i == 0 {
				return nil, &syntaxError{msg: `it starts with "||"`, blang: "First element in range is '||'"}
			}
			groups = append(groups, parts[last:i])
			last = i + 1
		}
	}
	if last == len(parts) {
		msg := `it ends with "||"`
		if len(parts) == 0 {
			msg = "no comparison in it"
		}
		return nil, &syntaxError{msg: msg, blang: "Last element in range is '||'"}
	}
	return append(groups, parts[last:]), nil
}

// splitAndTrim splits on spaces, except after an operator character so that
// ">= 1.0.0" stays one term, and drops one-character parts as blang does.
func splitAndTrim(s string) []string {
	var out []string
	last := 0
	var lastChar byte
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' && lastChar != '>' && lastChar != '<' && lastChar != '=' {
			if last < i-1 {
				out = append(out, s[last:i])
			}
			last = i + 1
		} else if s[i] != ' ' {
			lastChar = s[i]
		}
	}
	if last < len(s)-1 {
		out = append(out, s[last:])
	}
	for i, p := range out {
		out[i] = strings.ReplaceAll(p, " ", "")
	}
	return out
}

// splitOpVersion splits a term where its first digit starts.
func splitOpVersion(t string) (string, string, *syntaxError) {
	i := strings.IndexFunc(t, unicode.IsDigit)
	if i < 0 {
		return "", "", &syntaxError{msg: fmt.Sprintf("%q has no version", t), blang: fmt.Sprintf("Could not get version from string: %q", t)}
	}
	return strings.TrimSpace(t[:i]), t[i:], nil
}

// expandWildcards rewrites terms with an "x" the way blang does: "1.x"
// covers [1.0.0, 2.0.0), "1.2.x" covers [1.2.0, 1.3.0).
func expandWildcards(terms []string) ([]string, *syntaxError) {
	var out []string
	for _, t := range terms {
		if !strings.Contains(t, "x") {
			out = append(out, t)
			continue
		}
		o, v, err := splitOpVersion(t)
		if err != nil {
			return nil, err
		}
		parts := strings.Split(v, ".")
		wild := 0 // 2: minor wildcard (1.x), 3: patch wildcard (1.2.x)
		if parts[len(parts)-1] == "x" && (len(parts) == 2 || len(parts) == 3) {
			wild = len(parts)
		}
		flat := strings.Replace(v, ".x.x", ".x", 1)
		flat = strings.Replace(flat, ".x", ".0", 1)
		if len(strings.Split(flat, ".")) == 2 {
			flat += ".0"
		}
		var resOp string
		inc := false
		switch o {
		case ">":
			resOp, inc = ">=", true
		case ">=":
			resOp = ">="
		case "<":
			resOp = "<"
		case "<=":
			resOp, inc = "<", true
		case "", "=", "==":
			out = append(out, ">="+flat)
			resOp, inc = "<", true
		case "!=", "!":
			out = append(out, "<"+flat)
			resOp, inc = ">=", true
		}
		resV := flat
		if inc {
			resV = ""
			switch wild {
			case 3:
				resV = bump(flat, 1)
			case 2:
				resV = bump(flat, 0)
			}
		}
		out = append(out, resOp+resV)
	}
	return out, nil
}

// bump increments part i (0 major, 1 minor) of a flat version, leaving the
// other parts as they are (as blang does); "" when that part is not a number.
func bump(flat string, i int) string {
	parts := strings.Split(flat, ".")
	if i >= len(parts) {
		return ""
	}
	n, err := strconv.Atoi(parts[i])
	if err != nil {
		return ""
	}
	parts[i] = strconv.Itoa(n + 1)
	return strings.Join(parts, ".")
}

func parseComparator(t string) (comparator, *syntaxError) {
	o, v, serr := splitOpVersion(t)
	if serr != nil {
		return comparator{}, serr
	}
	c, ok := classicOps[o]
	if !ok {
		return comparator{}, &syntaxError{
			msg:   fmt.Sprintf("%q: unknown operator %q (want = != > >= < <=)", t, o),
			blang: fmt.Sprintf("Could not parse Range %q: Could not parse comparator %q in %q", t, o, o+v),
		}
	}
	// blang decides what is a version and says why not; Masterminds, which
	// accepts the same strict versions, builds the value compared against.
	ver, err := mm.StrictNewVersion(v)
	blangErr := CheckVersion(v)
	if err == nil && blangErr != nil {
		err = blangErr
	}
	if blangErr == nil {
		blangErr = err
	}
	if err != nil {
		return comparator{}, &syntaxError{
			msg:   fmt.Sprintf("%q: version %q is not strict semver (major.minor.patch, no leading zeros): %v", t, v, err),
			blang: fmt.Sprintf("Could not parse Range %q: Could not parse version %q in %q: %s", t, v, o+v, blangErr),
			err:   err,
		}
	}
	return comparator{op: c, v: ver}, nil
}
