package pushhook

import (
	"net"
	"net/url"
	"strings"
)

// defaultPorts are dropped from a URL before comparing: a forge that writes
// https://host:443/o/r in one field and https://host/o/r in another names
// one repository.
var defaultPorts = map[string]string{
	"http":    "80",
	"https":   "443",
	"ssh":     "22",
	"git+ssh": "22",
	"ssh+git": "22",
	"git":     "9418",
}

// repoKey is a git URL reduced to what names the repository: the host
// (lower case, without a default port) and the path (case kept, without a
// trailing ".git" or "/").
type repoKey struct {
	host, port, path string
}

// SameRepository reports whether two git URLs name the same repository.
// The scheme does not matter between https, http, ssh, git and scp-like
// (git@host:owner/repo) addresses, since a forge serves one repository on
// all of them; neither do credentials in the userinfo, the host's case, a
// default port, or a trailing ".git" or "/". The path is compared case
// sensitively: forges disagree on whether Owner/Repo and owner/repo are one
// repository, and a false match would fetch a repository the push did not
// touch. A URL that names no host and path (an empty string, a local path,
// an unknown scheme) matches nothing, not even itself.
func SameRepository(a, b string) bool {
	ka, ok := parseRepoURL(a)
	if !ok {
		return false
	}
	kb, ok := parseRepoURL(b)
	return ok && ka == kb
}

// parseRepoURL reduces a git URL to its repoKey; ok is false when s is not
// a remote git URL.
func parseRepoURL(s string) (k repoKey, ok bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s, " \t\r\n") {
		return repoKey{}, false
	}
	if strings.Contains(s, "://") {
		k, ok = parseSchemeURL(s)
	} else {
		k, ok = parseSCPLike(s)
	}
	if !ok {
		return repoKey{}, false
	}
	k.path = trimRepoPath(k.path)
	if k.host == "" || k.path == "" || k.path == "/" {
		return repoKey{}, false
	}
	return k, true
}

// parseSchemeURL reads scheme://[user@]host[:port]/path.
func parseSchemeURL(s string) (repoKey, bool) {
	u, err := url.Parse(s)
	if err != nil {
		return repoKey{}, false
	}
	scheme := strings.ToLower(u.Scheme)
	def, known := defaultPorts[scheme]
	if !known {
		return repoKey{}, false
	}
	port := u.Port()
	if port == def {
		port = ""
	}
	return repoKey{host: strings.ToLower(u.Hostname()), port: port, path: u.Path}, true
}

// parseSCPLike reads git's scp-like syntax, [user@]host:path, which git
// recognises when a colon comes before any slash.
func parseSCPLike(s string) (repoKey, bool) {
	colon := hostColon(s)
	if colon < 0 || strings.Contains(s[:colon], "/") {
		return repoKey{}, false
	}
	host, path := s[:colon], s[colon+1:]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		host = host[at+1:]
	}
	if strings.HasPrefix(host, "[") {
		// [host:port]:path and [::1]:path: the brackets only shield colons.
		inner := strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
		if h, _, err := net.SplitHostPort(inner); err == nil {
			host = h
		} else {
			host = inner
		}
	}
	if p, err := url.PathUnescape(path); err == nil {
		// The same spelling as url.URL.Path, so that a percent-escaped path
		// compares equal across the two syntaxes.
		path = p
	}
	if !strings.HasPrefix(path, "/") {
		// git@host:o/r is relative to the ssh user's home, which on every
		// forge is the root ssh://git@host/o/r reaches.
		path = "/" + path
	}
	return repoKey{host: strings.ToLower(host), path: path}, true
}

// hostColon returns the index of the first colon outside square brackets,
// or -1: [::1]:o/r separates host and path at its last colon.
func hostColon(s string) int {
	inBrackets := false
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			inBrackets = true
		case ']':
			inBrackets = false
		case ':':
			if !inBrackets {
				return i
			}
		}
	}
	return -1
}

// trimRepoPath drops what git accepts around a repository path without it
// naming another repository.
func trimRepoPath(p string) string {
	p = strings.TrimRight(p, "/")
	p = strings.TrimSuffix(p, ".git")
	return strings.TrimRight(p, "/")
}
