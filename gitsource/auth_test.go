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
