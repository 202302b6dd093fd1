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
// "1.x" / "1.2.x" expand to the versions they cover.
func ParseClassicRange(s string) (Range, error) {
	groups, err := splitClassic(s)
	if err != nil {
		return Range{}, fmt.Errorf("invalid range %q: %w", s, err)
	}
	r := Range{text: s, syntax: Classic, or: make([][]comparator, 0, len(groups))}
	for _, terms := range groups {
		and := make([]comparator, 0, len(terms))
		for _, t := range terms {
			c, err := parseComparator(t)
			if err != nil {
				return Range{}, fmt.Errorf("invalid range %q: %w", s, err)
			}
			and = append(and, c)
		}
		r.or = append(r.or, and)
	}
	return r, nil
}

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

// splitClassic splits a classic range into OR groups of AND terms, with
// wildcards expanded.
func splitClassic(s string) ([][]string, error) {
	parts := splitAndTrim(s)
	var groups [][]string
	last := 0
	for i, p := range parts {
		if p == "||" {
			if i == 0 {
				return nil, fmt.Errorf(`it starts with "||"`)
			}
			groups = append(groups, parts[last:i])
			last = i + 1
		}
	}
	if last == len(parts) {
		if len(parts) == 0 {
			return nil, fmt.Errorf("no comparison in it")
		}
		return nil, fmt.Errorf(`it ends with "||"`)
	}
	groups = append(groups, parts[last:])
	for i, g := range groups {
		var err error
		if groups[i], err = expandWildcards(g); err != nil {
			return nil, err
		}
	}
	return groups, nil
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
func splitOpVersion(t string) (string, string, error) {
	i := strings.IndexFunc(t, unicode.IsDigit)
	if i < 0 {
		return "", "", fmt.Errorf("%q has no version", t)
	}
	return strings.TrimSpace(t[:i]), t[i:], nil
}

// expandWildcards rewrites terms with an "x" the way blang does: "1.x"
// covers [1.0.0, 2.0.0), "1.2.x" covers [1.2.0, 1.3.0).
func expandWildcards(terms []string) ([]string, error) {
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

func parseComparator(t string) (comparator, error) {
	o, v, err := splitOpVersion(t)
	if err != nil {
		return comparator{}, err
	}
	c, ok := classicOps[o]
	if !ok {
		return comparator{}, fmt.Errorf("%q: unknown operator %q (want = != > >= < <=)", t, o)
	}
	ver, err := mm.StrictNewVersion(v)
	if err != nil {
		return comparator{}, fmt.Errorf("%q: version %q is not strict semver (major.minor.patch, no leading zeros): %w", t, v, err)
	}
	return comparator{op: c, v: ver}, nil
}
