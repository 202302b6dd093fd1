package catalog

import "strings"

// The grammar of image references of github.com/distribution/reference (as
// vendored by containers/image, which opm uses), matched by hand: the
// regular expression it publishes was a sixth of the time of validating a
// large catalog. imageref_test.go keeps that expression and checks the two
// agree.
//
//	reference := name [ ":" tag ] [ "@" digest ]
//	name      := [ host [ ":" port ] "/" ] path-component { "/" path-component }
//	host      := domain-component { "." domain-component } | "[" hex-or-colon+ "]"
//	tag       := [\w][\w.-]{0,127}
//	digest    := algorithm ":" hex{32,}

// splitReference matches s against the grammar and returns its name and
// digest ("" when absent).
func splitReference(s string) (name, digest string, ok bool) {
	left := s
	if i := strings.IndexByte(s, '@'); i >= 0 {
		left, digest = s[:i], s[i+1:]
		if !isDigest(digest) {
			return "", "", false
		}
	}
	name = left
	// A colon after the last slash starts the tag: a name has one only in
	// its host's port, which a slash follows.
	if i := strings.LastIndexByte(left, ':'); i > strings.LastIndexByte(left, '/') {
		name = left[:i]
		if !isTag(left[i+1:]) {
			return "", "", false
		}
	}
	return name, digest, isName(name)
}

func isName(s string) bool {
	host, path, found := strings.Cut(s, "/")
	if found && isHostPort(host) && isPath(path) {
		return true
	}
	return isPath(s)
}

// isPath is path-component { "/" path-component }.
func isPath(s string) bool {
	for {
		comp, rest, more := strings.Cut(s, "/")
		if !isPathComponent(comp) {
			return false
		}
		if !more {
			return true
		}
		s = rest
	}
}

// isPathComponent is [a-z0-9]+ runs joined by ".", "_", "__" or "-"+.
func isPathComponent(s string) bool {
	if s == "" || !isLowerAlnum(s[0]) || !isLowerAlnum(s[len(s)-1]) {
		return false
	}
	for i := 0; i < len(s); {
		if isLowerAlnum(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && !isLowerAlnum(s[j]) {
			j++
		}
		switch sep := s[i:j]; {
		case sep == ".", sep == "_", sep == "__", strings.Trim(sep, "-") == "":
		default:
			return false
		}
		i = j
	}
	return true
}

func isHostPort(s string) bool {
	host := s
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 2 || !allBytes(s[1:end], func(c byte) bool { return isHex(c) || c == ':' }) {
			return false
		}
		host = s[:end+1]
	} else if i := strings.IndexByte(s, ':'); i >= 0 {
		host = s[:i]
	}
	if port, ok := strings.CutPrefix(s[len(host):], ":"); ok {
		if port == "" || !allBytes(port, isDigit) {
			return false
		}
	} else if len(host) != len(s) {
		return false
	}
	if strings.HasPrefix(host, "[") {
		return true
	}
	for comp := range strings.SplitSeq(host, ".") {
		if comp == "" || !isAlnum(comp[0]) || !isAlnum(comp[len(comp)-1]) ||
			!allBytes(comp, func(c byte) bool { return isAlnum(c) || c == '-' }) {
			return false
		}
	}
	return true
}

func isTag(s string) bool {
	return s != "" && len(s) <= 128 && isWord(s[0]) &&
		allBytes(s, func(c byte) bool { return isWord(c) || c == '.' || c == '-' })
}

// isDigest is [A-Za-z][A-Za-z0-9]* runs joined by one of "-_+.", a colon,
// and at least 32 hex digits.
func isDigest(s string) bool {
	alg, hex, ok := strings.Cut(s, ":")
	if !ok || len(hex) < 32 || !allBytes(hex, isHex) || alg == "" {
		return false
	}
	start := true // a letter must come next
	for i := 0; i < len(alg); i++ {
		c := alg[i]
		switch {
		case isLetter(c):
			start = false
		case start:
			return false
		case isDigit(c):
		case strings.IndexByte("-_+.", c) >= 0:
			start = true
		default:
			return false
		}
	}
	return !start
}

func allBytes(s string, ok func(byte) bool) bool {
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isLowerHex(s string) bool {
	return s != "" && allBytes(s, func(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'f' })
}

func isDigit(c byte) bool      { return '0' <= c && c <= '9' }
func isLetter(c byte) bool     { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isAlnum(c byte) bool      { return isDigit(c) || isLetter(c) }
func isLowerAlnum(c byte) bool { return isDigit(c) || 'a' <= c && c <= 'z' }
func isWord(c byte) bool       { return isAlnum(c) || c == '_' }
func isHex(c byte) bool        { return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }
