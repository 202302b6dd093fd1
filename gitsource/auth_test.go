package gitsource

import (
	"strings"
	"testing"
)

// Error messages carry URLs through redact: a password must never survive
// it, whether or not the URL parses.
func TestRedact(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://user:hunter2@example.com/o/r.git", "https://user:xxxxx@example.com/o/r.git"},
		{"https://example.com/o/r.git", "https://example.com/o/r.git"},
		{"https://user:hunter2@exa mple.com:99999/%zz", "https://exa mple.com:99999/%zz"},
		{"git@github.com:o/r.git", "git@github.com:o/r.git"},
	}
	for _, tt := range tests {
		got := redact(tt.in)
		if got != tt.want || strings.Contains(got, "hunter2") {
			t.Errorf("redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A forge or registry error body is a server's words: whatever it echoes,
// the token must not reach a log, a condition or stderr.
func TestRedactURLsHidesEchoedSecrets(t *testing.T) {
	const tok = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
	tests := []struct{ in, want string }{
		{"GET https://api.example.com/x?access_token=" + tok + "&page=2: 500", "GET https://api.example.com/x?access_token=xxxxx&page=2: 500"},
		{"https://registry.example.com/v2/token?scope=pull&X-Amz-Signature=abcdef123", "https://registry.example.com/v2/token?scope=pull&X-Amz-Signature=xxxxx"},
		{`{"message":"bad","headers":{"Authorization":"Bearer s3cr3t-value-123"}}`, `{"message":"bad","headers":{"Authorization":"Bearer xxxxx"}}`},
		{"Authorization: token s3cr3t-value-123\r\n", "Authorization: token xxxxx\r\n"},
		{"private-token=glpat-abcdefghij0123456789", "private-token=xxxxx"},
		{"your token " + tok + " expired", "your token xxxxx expired"},
		{"sent Basic dXNlcjpzM2NyM3Q=", "sent Basic xxxxx"},
		{"https://u:" + tok + "@h/o/r", "https://h/o/r"},
		{"a keyword in prose stays: token expired", "a keyword in prose stays: token expired"},
	}
	for _, tt := range tests {
		got := RedactURLs(tt.in)
		if got != tt.want || strings.Contains(got, "s3cr3t") || strings.Contains(got, tok) {
			t.Errorf("RedactURLs(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzRedactURLs: a password in a URL's user info, or a token in a query
// parameter, never survives, whatever surrounds it.
func FuzzRedactURLs(f *testing.F) {
	f.Add("see ", " for details")
	f.Add(`{"url":"`, `"}`)
	f.Fuzz(func(t *testing.T, before, after string) {
		const secret = "Zq9sEcReTvalue"
		for _, s := range []string{
			before + "https://user:" + secret + "@example.com/r" + after,
			before + "https://example.com/r?token=" + secret + after,
			before + "Authorization: Bearer " + secret + after,
		} {
			if got := RedactURLs(s); strings.Contains(got, secret) {
				t.Fatalf("RedactURLs(%q) = %q keeps the secret", s, got)
			}
		}
	})
}
