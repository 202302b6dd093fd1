package catalog

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// The syntax below is that of github.com/blang/semver/v4, which opm and
// OLM classic use for bundle versions and skipRange: checkVersion and
// checkRange accept exactly what its Parse and ParseRange accept, with the
// same error texts, so a catalog gets opm's verdict and opm's words.

const (
	semverNumbers  = "0123456789"
	semverAlphanum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-" + semverNumbers
)

func containsOnly(s, set string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !strings.ContainsRune(set, r) }) == -1
}

func hasLeadingZeroes(s string) bool { return len(s) > 1 && s[0] == '0' }

// checkVersion reports why s is not a version blang/semver's Parse accepts.
func checkVersion(s string) error {
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
		if err := checkPrerelease(p); err != nil {
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

// checkPrerelease reports why s is not one pre-release identifier.
func checkPrerelease(s string) error {
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

// checkRange reports why s is not a range blang/semver's ParseRange
// accepts. It follows ParseRange step by step, quirks included: the split
// on spaces keeps an operator with the version after it ("> 1.0.0") and
// drops one-character words; any word containing an "x" goes through
// wildcard expansion.
func checkRange(s string) error {
	words := splitRangeWords(s)
	ors, err := splitOr(words)
	if err != nil {
		return err
	}
	for _, and := range ors {
		expanded, err := expandWildcards(and)
		if err != nil {
			return err
		}
		for _, w := range expanded {
			op, v, err := splitComparator(w)
			if err != nil {
				return err
			}
			if !validComparator(op) {
				return fmt.Errorf("Could not parse Range %q: Could not parse comparator %q in %q", w, op, op+v)
			}
			if err := checkVersion(v); err != nil {
				return fmt.Errorf("Could not parse Range %q: Could not parse version %q in %q: %s", w, v, op+v, err)
			}
		}
	}
	return nil
}

func splitRangeWords(s string) []string {
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
	for i, w := range out {
		out[i] = strings.ReplaceAll(w, " ", "")
	}
	return out
}

func splitOr(words []string) ([][]string, error) {
	var out [][]string
	last := 0
	for i, w := range words {
		if w == "||" {
			if i == 0 {
				return nil, errors.New("First element in range is '||'")
			}
			out = append(out, words[last:i])
			last = i + 1
		}
	}
	if last == len(words) {
		return nil, errors.New("Last element in range is '||'")
	}
	return append(out, words[last:]), nil
}

func splitComparator(w string) (op, version string, err error) {
	i := strings.IndexFunc(w, unicode.IsDigit)
	if i == -1 {
		return "", "", fmt.Errorf("Could not get version from string: %q", w)
	}
	return strings.TrimSpace(w[:i]), w[i:], nil
}

func validComparator(op string) bool {
	switch op {
	case "", "=", "==", ">", ">=", "<", "<=", "!", "!=":
		return true
	}
	return false
}

// expandWildcards rewrites x-wildcard words ("1.2.x", ">1.x") into plain
// comparisons, the way ParseRange does before it parses them.
func expandWildcards(words []string) ([]string, error) {
	var out []string
	for _, w := range words {
		if !strings.Contains(w, "x") {
			out = append(out, w)
			continue
		}
		op, v, err := splitComparator(w)
		if err != nil {
			return nil, err
		}
		parts := strings.Split(v, ".")
		wildcard := 0 // 2: minor wildcard (1.x), 3: patch wildcard (1.2.x)
		if parts[len(parts)-1] == "x" && (len(parts) == 2 || len(parts) == 3) {
			wildcard = len(parts)
		}
		flat := strings.Replace(strings.Replace(v, ".x.x", ".x", 1), ".x", ".0", 1)
		if strings.Count(flat, ".") == 1 {
			flat += ".0"
		}
		var resultOp string
		increment := false
		switch op {
		case ">":
			resultOp, increment = ">=", true
		case ">=":
			resultOp = ">="
		case "<":
			resultOp = "<"
		case "<=":
			resultOp, increment = "<", true
		case "", "=", "==":
			out = append(out, ">="+flat)
			resultOp, increment = "<", true
		case "!=", "!":
			out = append(out, "<"+flat)
			resultOp, increment = ">=", true
		}
		result := flat
		if increment {
			result = ""
			switch wildcard {
			case 3:
				result = incrementPart(flat, 1)
			case 2:
				result = incrementPart(flat, 0)
			}
		}
		out = append(out, resultOp+result)
	}
	return out, nil
}

func incrementPart(v string, i int) string {
	parts := strings.Split(v, ".")
	n, err := strconv.Atoi(parts[i])
	if err != nil {
		return ""
	}
	parts[i] = strconv.Itoa(n + 1)
	return strings.Join(parts, ".")
}
