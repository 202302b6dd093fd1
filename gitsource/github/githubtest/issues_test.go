package githubtest_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// TestLabels sends, in order, the label bodies GitHub accepts and some it
// refuses, and checks the labels the pull request then has.
func TestLabels(t *testing.T) {
	fx := newFixture(t)
	fx.branch(t, "plan", map[string]string{"a": "1"})
	n := fx.openPR(t, "plan")
	path := "/issues/" + itoa(n) + "/labels"
	steps := []struct {
		name, method string
		body         any
		wantStatus   int
		want         []string
	}{
		{"add a list", http.MethodPost, []string{"olmops", "approval/manual"}, 200, []string{"olmops", "approval/manual"}},
		{"add under labels, ignoring case", http.MethodPost, map[string]any{"labels": []string{"OLMOPS", "prod"}}, 200, []string{"olmops", "approval/manual", "prod"}},
		{"add objects", http.MethodPost, []map[string]string{{"name": "etcd"}}, 200, []string{"olmops", "approval/manual", "prod", "etcd"}},
		{"add nothing", http.MethodPost, []string{}, 422, nil},
		{"add an empty name", http.MethodPost, []string{""}, 422, nil},
		{"replace", http.MethodPut, map[string]any{"labels": []string{"b", "a"}}, 200, []string{"b", "a"}},
		{"replace with null", http.MethodPut, nil, 400, nil},
		{"replace with none", http.MethodPut, []string{}, 200, []string{}},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			var r response
			if step.body == nil {
				r = fx.doRaw(t, step.method, path, "null")
			} else {
				r = fx.do(t, step.method, path, step.body)
			}
			if r.status != step.wantStatus {
				t.Fatalf("%d %v, want %d", r.status, r.body, step.wantStatus)
			}
			if step.wantStatus != http.StatusOK {
				return
			}
			var got []string
			for _, l := range r.body.([]any) {
				got = append(got, l.(map[string]any)["name"].(string))
			}
			pr, _ := fx.srv.PR(n)
			if !slices.Equal(got, step.want) || !slices.Equal(got, pr.Labels) {
				t.Errorf("labels %q (PR has %q), want %q", got, pr.Labels, step.want)
			}
		})
	}
}

func TestComments(t *testing.T) {
	fx := newFixture(t)
	fx.branch(t, "plan", map[string]string{"a": "1"})
	n := fx.openPR(t, "plan")
	path := "/issues/" + itoa(n) + "/comments"
	if r := fx.do(t, http.MethodPost, path, map[string]string{"body": ""}); r.status != http.StatusUnprocessableEntity {
		t.Errorf("empty comment: %d %v, want 422", r.status, r.body)
	}
	r := fx.do(t, http.MethodPost, path, map[string]string{"body": "superseded"})
	if r.status != http.StatusCreated || r.field("body") != "superseded" || r.field("user", "login") == nil {
		t.Errorf("comment: %d %v", r.status, r.body)
	}
	if pr, _ := fx.srv.PR(n); !slices.Equal(pr.Comments, []string{"superseded"}) {
		t.Errorf("comments %q", pr.Comments)
	}
}

// TestUpdatePull sends, in order, updates GitHub takes and ones it refuses.
func TestUpdatePull(t *testing.T) {
	fx := newFixture(t)
	fx.branch(t, "plan", map[string]string{"a": "1"})
	fx.branch(t, "release", map[string]string{"r": "1"})
	fx.branch(t, "merged", map[string]string{"m": "1"})
	n := fx.openPR(t, "plan")
	m := fx.openPR(t, "merged")
	fx.srv.Merge(t, m)
	steps := []struct {
		name       string
		number     int
		body       map[string]any
		wantStatus int
		check      func(r response) bool
	}{
		{"title and body", n, map[string]any{"title": "new", "body": ""}, 200, func(r response) bool {
			return r.field("title") == "new" && r.field("body") == nil
		}},
		{"empty title", n, map[string]any{"title": ""}, 422, nil},
		{"unknown state", n, map[string]any{"state": "merged"}, 422, nil},
		{"base missing", n, map[string]any{"base": "nope"}, 422, nil},
		{"base", n, map[string]any{"base": "release"}, 200, func(r response) bool { return r.field("base", "ref") == "release" }},
		{"close", n, map[string]any{"state": "closed"}, 200, func(r response) bool {
			return r.field("state") == "closed" && r.field("closed_at") != nil && r.field("merged") == false
		}},
		{"base of a closed one", n, map[string]any{"base": "main"}, 422, nil},
		{"reopen", n, map[string]any{"state": "open"}, 200, func(r response) bool { return r.field("closed_at") == nil }},
		{"reopen a merged one", m, map[string]any{"state": "open"}, 422, nil},
		{"close a merged one", m, map[string]any{"state": "closed"}, 200, func(r response) bool { return r.field("merged") == true }},
	}
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			r := fx.do(t, http.MethodPatch, "/pulls/"+itoa(step.number), step.body)
			if r.status != step.wantStatus {
				t.Fatalf("%d %v, want %d", r.status, r.body, step.wantStatus)
			}
			if step.check != nil && !step.check(r) {
				t.Errorf("unexpected pull request: %v", r.body)
			}
			if r.status == http.StatusUnprocessableEntity && (r.field("message") != "Validation Failed" || !strings.Contains(compactErrors(r), " ")) {
				t.Errorf("422 body %v", r.body)
			}
		})
	}
}
