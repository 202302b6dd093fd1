// Package redact makes text that may carry credentials safe to log, show
// or store: error bodies of forges and registries, URLs, messages built
// from either. It is a leaf, so that every edge that talks to a server
// (gitsource, catalog/oci, the reconciler) redacts the same way.
package redact

import "regexp"

// Placeholder replaces every secret Text hides.
const Placeholder = "xxxxx"

var (
	// userInfo matches the user info of a URL whether or not the rest of
	// the URL parses.
	userInfo    = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^/?#\s]*@`)
	secretQuery = regexp.MustCompile(`(?i)([?&;][a-z0-9_.\-]*(?:token|key|secret|sig|signature|password|passwd|pwd|auth|credential|session)[a-z0-9_.\-]*=)[^&;#\s"'<>]+`)
	authHeader  = regexp.MustCompile(`(?i)\b(authorization|proxy-authorization|private-token|x-gitlab-token|x-api-key)(["']?\s*[:=]\s*\[?["']?)((?:bearer|token|basic)\s+)?[^\s"',\]}]+`)
	bearer      = regexp.MustCompile(`(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/\-]{8,}=*`)
	tokenShape  = regexp.MustCompile(`\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_\-]{20,})`)
)

// Text drops the user info (user name and password) of every URL in s,
// parseable or not, and hides the values of query parameters named like a
// secret (token, key, sig, password, ...), Authorization (and GitLab
// token) header values a server echoed back, Bearer and Basic
// credentials, and tokens in the shapes GitHub and GitLab issue.
func Text(s string) string {
	s = userInfo.ReplaceAllString(s, "$1")
	s = secretQuery.ReplaceAllString(s, "${1}"+Placeholder)
	s = authHeader.ReplaceAllString(s, "${1}${2}${3}"+Placeholder)
	s = bearer.ReplaceAllString(s, "${1} "+Placeholder)
	return tokenShape.ReplaceAllString(s, Placeholder)
}
