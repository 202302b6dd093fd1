package githubtest_test

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

func itoa(n int) string { return strconv.Itoa(n) }

func TestCreateStatusValidation(t *testing.T) {
	fx := newFixture(t)
	ok := map[string]any{"state": "success", "context": "olmops/x"}
	with := func(k string, v any) map[string]any {
		m := map[string]any{"state": "success", "context": "olmops/x"}
		m[k] = v
		return m
	}
	tests := []struct {
		name, sha  string
		body       map[string]any
		wantStatus int
		want       string // message, or the errors' messages
	}{
		{"valid", fx.main, ok, 201, ""},
		{"description of 140 characters", fx.main, with("description", strings.Repeat("é", 140)), 201, ""},
		{"description of 141 characters", fx.main, with("description", strings.Repeat("é", 141)), 422, "description is too long (maximum is 140 characters)"},
		{"unknown state", fx.main, with("state", "done"), 422, "state is not included in the list"},
		{"no state", fx.main, map[string]any{"context": "c"}, 422, "state is not included in the list"},
		{"short sha", fx.main[:7], ok, 422, "sha must be a 40 character SHA1"},
		{"unknown commit", strings.Repeat("a", 40), ok, 422, "No commit found for SHA: " + strings.Repeat("a", 40)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fx.do(t, http.MethodPost, "/statuses/"+tt.sha, tt.body)
			if r.status != tt.wantStatus {
				t.Fatalf("%d %v, want %d", r.status, r.body, tt.wantStatus)
			}
			if tt.want != "" && r.field("message") != tt.want && compactErrors(r) != tt.want {
				t.Errorf("body %v, want %q", r.body, tt.want)
			}
		})
	}
	r := fx.do(t, http.MethodPost, "/statuses/"+fx.main, map[string]any{"state": "pending", "target_url": "https://x"})
	if r.field("context") != "default" || r.field("target_url") != "https://x" || r.field("description") != nil || r.field("id") == nil {
		t.Errorf("status %v, want context default, the URL and no description", r.body)
	}
	if n := len(fx.srv.StatusesFor(fx.main)); n != 3 {
		t.Errorf("%d statuses kept, want 3", n)
	}
}

func TestCombinedStatus(t *testing.T) {
	fx := newFixture(t)
	post := func(context, state, desc string) {
		r := fx.do(t, http.MethodPost, "/statuses/"+fx.main, map[string]any{"context": context, "state": state, "description": desc})
		if r.status != http.StatusCreated {
			t.Fatalf("post: %d %v", r.status, r.body)
		}
	}
	get := func(ref, query string) response {
		return fx.do(t, http.MethodGet, "/commits/"+ref+"/status"+query, nil)
	}
	if r := get(fx.main, ""); r.field("state") != "pending" || r.field("total_count") != 0.0 {
		t.Errorf("no statuses: %v, want pending and none", r.body)
	}
	post("a", "failure", "old")
	post("b", "success", "")
	post("a", "success", "new")
	for _, ref := range []string{fx.main, "main"} {
		r := get(ref, "")
		if r.field("state") != "success" || r.field("total_count") != 2.0 || r.field("sha") != fx.main {
			t.Errorf("%s: %v, want success over 2 contexts", ref, r.body)
		}
		if got := contexts(r); got != "a=success new, b=success " {
			t.Errorf("%s: statuses %s, want the newest of each, newest first", ref, got)
		}
	}
	post("c", "pending", "")
	if r := get("main", ""); r.field("state") != "pending" {
		t.Errorf("with a pending one: %v", r.field("state"))
	}
	post("d", "error", "")
	if r := get("main", "?per_page=2&page=2"); r.field("state") != "failure" || contexts(r) != "a=success new, b=success " {
		t.Errorf("page 2: state %v, statuses %s", r.field("state"), contexts(r))
	}
	for _, ref := range []string{"nope", strings.Repeat("b", 40)} {
		if r := get(ref, ""); r.status != http.StatusUnprocessableEntity || r.field("message") != "No commit found for SHA: "+ref {
			t.Errorf("unknown ref %s: %d %v", ref, r.status, r.body)
		}
	}
	gittest.Git(t, fx.dir, "tag", "v1", "main")
	if r := get("v1", ""); r.field("sha") != fx.main || r.field("total_count") != 4.0 {
		t.Errorf("tag: %v, want main's statuses", r.body)
	}
}

// contexts lists a combined status's statuses as "context=state description".
func contexts(r response) string {
	var parts []string
	sts, _ := r.field("statuses").([]any)
	for _, s := range sts {
		m := s.(map[string]any)
		desc, _ := m["description"].(string)
		parts = append(parts, fmt.Sprintf("%s=%s %s", m["context"], m["state"], desc))
	}
	return strings.Join(parts, ", ")
}
