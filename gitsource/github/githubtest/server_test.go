package githubtest_test

import (
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

func TestAuthAndRoutes(t *testing.T) {
	fx := newFixture(t)
	tests := []struct {
		name, auth, method, path string
		wantStatus               int
		wantMessage              string
	}{
		{"bearer", "Bearer " + token, http.MethodGet, "/pulls", http.StatusOK, ""},
		{"token scheme", "token " + token, http.MethodGet, "/pulls", http.StatusOK, ""},
		{"enterprise prefix", "Bearer " + token, http.MethodGet, "/api/v3/repos/acme/olm/pulls", http.StatusOK, ""},
		{"owner and repo ignore case", "Bearer " + token, http.MethodGet, "/api/v3/repos/ACME/Olm/pulls", http.StatusOK, ""},
		{"no token", "", http.MethodGet, "/pulls", http.StatusUnauthorized, "Requires authentication"},
		{"wrong token", "Bearer nope", http.MethodGet, "/pulls", http.StatusUnauthorized, "Bad credentials"},
		{"other repository", "Bearer " + token, http.MethodGet, "/api/v3/repos/acme/other/pulls", http.StatusNotFound, "Not Found"},
		{"unknown route", "Bearer " + token, http.MethodGet, "/issues", http.StatusNotFound, "Not Found"},
		{"wrong method", "Bearer " + token, http.MethodDelete, "/pulls", http.StatusNotFound, "Not Found"},
		{"unknown pull request", "Bearer " + token, http.MethodPatch, "/pulls/7", http.StatusNotFound, "Not Found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fx.doAs(t, tt.auth, tt.method, tt.path, nil)
			if r.status != tt.wantStatus {
				t.Fatalf("status %d, want %d: %v", r.status, tt.wantStatus, r.body)
			}
			if tt.wantMessage != "" && (r.field("message") != tt.wantMessage || r.field("documentation_url") == nil) {
				t.Errorf("body %v, want message %q and a documentation_url", r.body, tt.wantMessage)
			}
		})
	}
}

func TestCreatePullValidation(t *testing.T) {
	fx := newFixture(t)
	head := fx.branch(t, "plan", map[string]string{"plan.yaml": "x"})
	fx.branch(t, "same", nil) // an empty commit: ahead of main all the same
	fx.do(t, http.MethodPost, "/pulls", map[string]any{"title": "t", "head": "same", "base": "main"})
	gittest.Git(t, fx.dir, "branch", "behind", fx.main)
	tests := []struct {
		name string
		body map[string]any
		want string // the errors list, compacted
	}{
		{"missing fields", map[string]any{"head": "plan"}, `title missing_field; base missing_field`},
		{"head not pushed", map[string]any{"title": "t", "head": "nope", "base": "main"}, `head invalid`},
		{"head of another owner", map[string]any{"title": "t", "head": "other:plan", "base": "main"}, `head invalid`},
		{"base missing", map[string]any{"title": "t", "head": "plan", "base": "nope"}, `base invalid`},
		{"duplicate", map[string]any{"title": "t", "head": "acme:same", "base": "main"}, `A pull request already exists for acme:same.`},
		{"nothing to merge", map[string]any{"title": "t", "head": "behind", "base": "main"}, `No commits between main and behind`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fx.do(t, http.MethodPost, "/pulls", tt.body)
			if r.status != http.StatusUnprocessableEntity || r.field("message") != "Validation Failed" {
				t.Fatalf("%d %v, want 422 Validation Failed", r.status, r.body)
			}
			if got := compactErrors(r); got != tt.want {
				t.Errorf("errors %q, want %q", got, tt.want)
			}
		})
	}
	r := fx.do(t, http.MethodPost, "/pulls", map[string]any{"title": "t", "head": "plan", "base": "main", "body": "b"})
	if r.status != http.StatusCreated || r.field("head", "sha") != head || r.field("base", "sha") != fx.main ||
		r.field("head", "label") != "acme:plan" || r.field("merged") != false || r.field("body") != "b" {
		t.Errorf("created: %d %v", r.status, r.body)
	}
}

// compactErrors joins a 422's errors as "field code" or their message.
func compactErrors(r response) string {
	var parts []string
	errs, _ := r.field("errors").([]any)
	for _, e := range errs {
		m := e.(map[string]any)
		if msg, ok := m["message"].(string); ok {
			parts = append(parts, msg)
		} else {
			parts = append(parts, fmt.Sprint(m["field"], " ", m["code"]))
		}
	}
	return strings.Join(parts, "; ")
}

func TestListPagination(t *testing.T) {
	fx := newFixture(t)
	fx.branch(t, "plan", map[string]string{"a": "1"})
	for range 35 {
		fx.srv.ClosePR(t, fx.openPR(t, "plan"))
	}
	tests := []struct {
		query    string
		wantLen  int
		wantNext string // the page of rel="next", "" for none
		wantLast string
	}{
		{"state=all", 30, "2", "2"},
		{"state=all&page=2", 5, "", ""},
		{"state=all&per_page=10&page=2", 10, "3", "4"},
		{"state=all&per_page=500", 35, "", ""},
		{"state=open", 0, "", ""},
		{"state=closed&head=acme:plan&per_page=100", 35, "", ""},
		{"state=all&head=acme:other", 0, "", ""},
	}
	next := regexp.MustCompile(`[?&]page=(\d+)[^>]*>; rel="next"`)
	last := regexp.MustCompile(`[?&]page=(\d+)[^>]*>; rel="last"`)
	for _, tt := range tests {
		t.Run(tt.query, func(t *testing.T) {
			r := fx.do(t, http.MethodGet, "/pulls?"+tt.query, nil)
			list, _ := r.body.([]any)
			if r.status != http.StatusOK || len(list) != tt.wantLen {
				t.Fatalf("%d with %d items, want 200 with %d", r.status, len(list), tt.wantLen)
			}
			link := r.header.Get("Link")
			if got := submatch(next, link); got != tt.wantNext {
				t.Errorf("next page %q, want %q (Link: %s)", got, tt.wantNext, link)
			}
			if got := submatch(last, link); got != tt.wantLast {
				t.Errorf("last page %q, want %q (Link: %s)", got, tt.wantLast, link)
			}
		})
	}
	// Newest first by default.
	r := fx.do(t, http.MethodGet, "/pulls?state=all&per_page=2", nil)
	if first := r.body.([]any)[0].(map[string]any)["number"]; first != 35.0 {
		t.Errorf("first listed is #%v, want #35", first)
	}
}

func submatch(re *regexp.Regexp, s string) string {
	if m := re.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}
