// Package redact makes text that may carry credentials safe to log, show
// or store: error bodies of forges and registries, URLs, messages built
// from either. It is a leaf, so that every edge that talks to a server
// (gitsource, catalog/oci, the reconciler) redacts the same way.
package redact

import (
	"regexp"
	"sync"
)

// Placeholder replaces every secret Text hides.
const Placeholder = "xxxxx"

// The patterns are compiled on first use, not at start-up: most commands
// (validate, list) never redact anything, and compiling them cost every
// command ~66 KB and 400 allocations before main.
var (
	// userInfo matches the user info of a URL whether or not the rest of
	// the URL parses.
	userInfo    = lazyRegexp(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@`)
	secretQuery = lazyRegexp(`(?i)([?&;][a-z0-9_.\-]*(?:token|key|secret|sig|signature|password|passwd|pwd|auth|credential|session)[a-z0-9_.\-]*=)[^&;#\s"'<>]+`)
	authHeader  = lazyRegexp(`(?i)\b(authorization|proxy-authorization|private-token|x-gitlab-token|x-api-key)(["']?\s*[:=]\s*\[?["']?)((?:bearer|token|basic)\s+)?[^\s"',\]}]+`)
	bearer      = lazyRegexp(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/\-]{8,}=*`)
	tokenShape  = lazyRegexp(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{20,})`)
)

// lazyRegexp compiles pattern the first time the returned function is called.
func lazyRegexp(pattern string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(pattern) })
}

// Text drops the user info (user name and password) of every URL in s,
// parseable or not, and hides the values of query parameters named like a
// secret (token, key, sig, password, ...), Authorization (and GitLab
// token) header values a server echoed back, Bearer and Basic
// credentials, and tokens in the shapes GitHub and GitLab issue.
func Text(s string) string {
	s = userInfo().ReplaceAllString(s, "$1")
	s = secretQuery().ReplaceAllString(s, "${1}"+Placeholder)
	s = authHeader().ReplaceAllString(s, "${1}${2}${3}"+Placeholder)
	s = bearer().ReplaceAllString(s, "${1} "+Placeholder)
	return tokenShape().ReplaceAllString(s, Placeholder)
}
