package github

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/olmops/olmops/gitsource"
)

// TestSetStatus sets statuses in order on one commit: each is posted only
// when it differs from the context's latest.
func TestSetStatus(t *testing.T) {
	fx := newFixture(t)
	long := strings.Repeat("é", 200)
	cut := strings.Repeat("é", gitsource.MaxStatusDescription-1) + "…"
	etcd, vault := "olmops/prod/operators/etcd", "olmops/prod/operators/vault"
	steps := []struct {
		name       string
		st         gitsource.Status
		wantDesc   string
		wantPosted bool
	}{
		{"first", gitsource.Status{Context: etcd, State: gitsource.StatusPending, Description: "planned"}, "planned", true},
		{"same again", gitsource.Status{Context: etcd, State: gitsource.StatusPending, Description: "planned"}, "planned", false},
		{"another context", gitsource.Status{Context: vault, State: gitsource.StatusSuccess}, "", true},
		{"new state", gitsource.Status{Context: etcd, State: gitsource.StatusSuccess, Description: "applied", TargetURL: "https://x/1"}, "applied", true},
		{"same with URL", gitsource.Status{Context: etcd, State: gitsource.StatusSuccess, Description: "applied", TargetURL: "https://x/1"}, "applied", false},
		{"new URL", gitsource.Status{Context: etcd, State: gitsource.StatusSuccess, Description: "applied", TargetURL: "https://x/2"}, "applied", true},
		{"long description", gitsource.Status{Context: etcd, State: gitsource.StatusFailure, Description: long}, cut, true},
		{"same long description", gitsource.Status{Context: etcd, State: gitsource.StatusFailure, Description: long}, cut, false},
		{"description back to empty", gitsource.Status{Context: etcd, State: gitsource.StatusFailure}, "", true},
	}
	path := "/repos/" + testOwner + "/" + fx.repo + "/statuses/" + fx.main
	posted := 0
	for _, step := range steps {
		t.Run(step.name, func(t *testing.T) {
			before := fx.gh.CountRequests(http.MethodPost, path)
			if err := fx.forge.SetStatus(t.Context(), fx.main, step.st); err != nil {
				t.Fatalf("SetStatus: %v", err)
			}
			wantPosts := 0
			if step.wantPosted {
				wantPosts = 1
			}
			if got := fx.gh.CountRequests(http.MethodPost, path) - before; got != wantPosts {
				t.Errorf("%d posts, want %d", got, wantPosts)
			}
			posted += wantPosts
			want := step.st
			want.Description = step.wantDesc
			got, err := fx.forge.Statuses(t.Context(), fx.main)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(got, want) {
				t.Errorf("Statuses = %+v, want it to hold %+v", got, want)
			}
		})
	}
	if n := len(fx.gh.StatusesFor(fx.main)); n != posted {
		t.Errorf("GitHub holds %d statuses, want %d", n, posted)
	}
}

// TestStatusesLatestPerContext reads more contexts than fit a page, each
// set twice: the newest of each is returned, sorted by context.
func TestStatusesLatestPerContext(t *testing.T) {
	fx := newFixture(t)
	const contexts = 35
	var want []gitsource.Status
	for i := range contexts {
		ctx := fmt.Sprintf("olmops/c%02d", contexts-1-i) // posted in reverse order
		for _, desc := range []string{"old", "new"} {
			st := gitsource.Status{Context: ctx, State: gitsource.StatusSuccess, Description: desc}
			if err := fx.forge.SetStatus(t.Context(), fx.main, st); err != nil {
				t.Fatal(err)
			}
		}
		want = append(want, gitsource.Status{Context: fmt.Sprintf("olmops/c%02d", i), State: gitsource.StatusSuccess, Description: "new"})
	}
	for _, perPage := range []int{100, 10} {
		t.Run(fmt.Sprint("per page ", perPage), func(t *testing.T) {
			f := *fx.forge
			f.perPage = perPage
			got, err := f.Statuses(t.Context(), fx.main)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, want) {
				t.Errorf("Statuses = %+v\nwant %+v", got, want)
			}
		})
	}
	if other, err := fx.forge.Statuses(t.Context(), fx.push(t, "other", "f", "x")); err != nil || len(other) != 0 {
		t.Errorf("Statuses of a commit without any = %v, %v; want none", other, err)
	}
}

func TestSetStatusRejectsBadInput(t *testing.T) {
	fx := newFixture(t)
	ok := gitsource.Status{Context: "olmops/x", State: gitsource.StatusSuccess}
	tests := []struct {
		name, commit string
		st           gitsource.Status
		want         string
	}{
		{"short hash", fx.main[:12], ok, "not a full lower-case hex hash"},
		{"upper-case hash", strings.ToUpper(fx.main), ok, "not a full lower-case hex hash"},
		{"branch name", "main", ok, "not a full lower-case hex hash"},
		{"no context", fx.main, gitsource.Status{State: gitsource.StatusSuccess}, "Context is empty"},
		{"unknown state", fx.main, gitsource.Status{Context: "olmops/x", State: "done"}, `state "done"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := len(fx.gh.Requests())
			err := fx.forge.SetStatus(t.Context(), tt.commit, tt.st)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("SetStatus = %v, want an error containing %q", err, tt.want)
			}
			if n := len(fx.gh.Requests()) - before; n != 0 {
				t.Errorf("%d requests sent for bad input", n)
			}
		})
	}
}

func TestTruncate(t *testing.T) {
	limit := gitsource.MaxStatusDescription
	tests := []struct{ in, want string }{
		{"", ""},
		{"short", "short"},
		{strings.Repeat("a", limit), strings.Repeat("a", limit)},
		{strings.Repeat("a", limit+1), strings.Repeat("a", limit-1) + "…"},
		{strings.Repeat("日", limit+5), strings.Repeat("日", limit-1) + "…"},
		{strings.Repeat("a", limit-1) + "日本", strings.Repeat("a", limit-1) + "…"},
	}
	for _, tt := range tests {
		if got := gitsource.TruncateDescription(tt.in); got != tt.want {
			t.Errorf("truncate(%d runes) = %q, want %q", utf8.RuneCountInString(tt.in), got, tt.want)
		}
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add("short")
	f.Add(strings.Repeat("é", 141))
	f.Add(strings.Repeat("a", 139) + "\xff\xfe日")
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		got := gitsource.TruncateDescription(s)
		n := utf8.RuneCountInString(got)
		switch {
		case !utf8.ValidString(got):
			t.Fatalf("truncate(%q) = %q, not valid UTF-8", s, got)
		case n > gitsource.MaxStatusDescription:
			t.Fatalf("truncate(%q) has %d characters", s, n)
		case got != s && !strings.HasPrefix(s, strings.TrimSuffix(got, "…")):
			t.Fatalf("truncate(%q) = %q, not a prefix", s, got)
		}
	})
}

// DatedStatuses dates each context's latest status as GitHub created it.
func TestDatedStatuses(t *testing.T) {
	fx := newFixture(t)
	before := time.Now().Add(-time.Second)
	st := gitsource.Status{Context: "olmops/staging/ops/etcd", State: gitsource.StatusSuccess, Description: "etcd.v0.9.4 installed · healthy"}
	if err := fx.forge.SetStatus(t.Context(), fx.main, st); err != nil {
		t.Fatal(err)
	}
	got, err := fx.forge.DatedStatuses(t.Context(), fx.main)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Status != st || got[0].Since.Before(before) || got[0].Since.After(time.Now()) {
		t.Errorf("DatedStatuses = %+v, want %+v dated now", got, st)
	}
}
