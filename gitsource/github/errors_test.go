package github

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	gh "github.com/google/go-github/v62/github"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// calls runs each Forge method once, for tests of failures common to all.
func calls(fx *fixture, head string) map[string]func(ctx context.Context, f *Forge) error {
	return map[string]func(ctx context.Context, f *Forge) error{
		"Proposals": func(ctx context.Context, f *Forge) error { _, err := f.Proposals(ctx, head); return err },
		"Propose": func(ctx context.Context, f *Forge) error {
			_, err := f.Propose(ctx, gitsource.ProposalRequest{Head: head, Base: "main", Title: "t"})
			return err
		},
		"Close":    func(ctx context.Context, f *Forge) error { return f.Close(ctx, &gitsource.Proposal{Number: 1}, "c") },
		"Statuses": func(ctx context.Context, f *Forge) error { _, err := f.Statuses(ctx, fx.main); return err },
		"SetStatus": func(ctx context.Context, f *Forge) error {
			return f.SetStatus(ctx, fx.main, gitsource.Status{Context: "c", State: gitsource.StatusSuccess})
		},
	}
}

// logTo returns a context whose logger writes everything, at every
// verbosity, to buf.
func logTo(ctx context.Context, buf *syncBuffer) context.Context {
	return logr.NewContext(ctx, funcr.New(func(prefix, args string) { buf.WriteString(prefix + args + "\n") }, funcr.Options{Verbosity: 10}))
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) WriteString(v string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.WriteString(v)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestBadTokenNeverShown(t *testing.T) {
	fx := newFixture(t)
	fx.push(t, "plan", "plan.yaml", "x")
	wrong := "ghp_WRONGTOKEN9876543210zyxwvuNEVERLEAK"
	var logs syncBuffer
	ctx := logTo(t.Context(), &logs)
	bad, err := New(ctx, Options{Owner: testOwner, Repo: fx.repo, Token: wrong, BaseURL: fx.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	for name, call := range calls(fx, "plan") {
		t.Run(name, func(t *testing.T) {
			err := call(ctx, bad)
			if !errors.Is(err, gitsource.ErrForge) {
				t.Fatalf("err = %v, want ErrForge", err)
			}
			msg := err.Error()
			for _, want := range []string{"401", "Bad credentials", "check the token", "/repos/" + testOwner + "/" + fx.repo} {
				if !strings.Contains(msg, want) {
					t.Errorf("%q does not say %q", msg, want)
				}
			}
			if strings.Contains(msg, wrong) || strings.Contains(fmt.Sprintf("%+v", err), wrong) {
				t.Errorf("error shows the token: %s", msg)
			}
		})
	}
	// A working forge logs what it does; the token must be in none of it.
	for _, call := range calls(fx, "plan") {
		call(ctx, fx.newForge(t, Options{Token: testToken, BaseURL: fx.gh.URL}))
	}
	opts := Options{Owner: "o", Repo: "r", Token: testToken}
	for _, text := range []string{logs.String(), fmt.Sprint(opts), fmt.Sprintf("%+v", opts), fmt.Sprintf("%#v", opts)} {
		if strings.Contains(text, wrong) || strings.Contains(text, testToken) {
			t.Errorf("token shown in %q", text)
		}
	}
	if !strings.Contains(logs.String(), "opened pull request") {
		t.Errorf("nothing logged; the check above proves nothing:\n%s", logs.String())
	}
}

func TestValidationFailed(t *testing.T) {
	fx := newFixture(t)
	fx.push(t, "plan", "plan.yaml", "x")
	gittest.Git(t, fx.dir, "branch", "empty", "main") // nothing to merge
	prefix := "/repos/" + testOwner + "/" + fx.repo
	tests := []struct {
		name string
		call func(ctx context.Context) error
		want []string
	}{
		{"head not pushed", func(ctx context.Context) error {
			_, err := fx.forge.Propose(ctx, gitsource.ProposalRequest{Head: "missing", Base: "main", Title: "t"})
			return err
		}, []string{"POST " + prefix + "/pulls", "422 Validation Failed", "PullRequest head invalid"}},
		{"base missing", func(ctx context.Context) error {
			_, err := fx.forge.Propose(ctx, gitsource.ProposalRequest{Head: "plan", Base: "nope", Title: "t"})
			return err
		}, []string{"422 Validation Failed", "PullRequest base invalid"}},
		{"no commits", func(ctx context.Context) error {
			_, err := fx.forge.Propose(ctx, gitsource.ProposalRequest{Head: "empty", Base: "main", Title: "t"})
			return err
		}, []string{"422 Validation Failed: No commits between main and empty"}},
		{"unknown commit", func(ctx context.Context) error {
			return fx.forge.SetStatus(ctx, strings.Repeat("0", 40), gitsource.Status{Context: "c", State: gitsource.StatusSuccess})
		}, []string{"GET " + prefix + "/commits/0000", "422 No commit found for SHA"}},
		{"unknown pull request", func(ctx context.Context) error {
			return fx.forge.Close(ctx, &gitsource.Proposal{Number: 99}, "")
		}, []string{"PATCH " + prefix + "/pulls/99", "404 Not Found", "check the owner and repository"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call(t.Context())
			var resp *gh.ErrorResponse
			if !errors.Is(err, gitsource.ErrForge) || !errors.As(err, &resp) {
				t.Fatalf("err = %v, want ErrForge with GitHub's response", err)
			}
			for _, want := range tt.want {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
		})
	}
}

func TestRateLimited(t *testing.T) {
	tests := []struct {
		name   string
		limit  func(fx *fixture)
		want   string
		sticky bool // go-github then refuses without asking
	}{
		{"primary", func(fx *fixture) { fx.gh.ExhaustRateLimit(time.Now().Add(90 * time.Second)) }, "API rate limit exceeded", true},
		{"secondary 403", func(fx *fixture) { fx.gh.Throttle(http.StatusForbidden, 30*time.Second) }, "secondary rate limit", true},
		{"secondary 429", func(fx *fixture) { fx.gh.Throttle(http.StatusTooManyRequests, 30*time.Second) }, "429", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fx := newFixture(t)
			tt.limit(fx)
			err := calls(fx, "plan")["Statuses"](t.Context(), fx.forge)
			if !errors.Is(err, ErrRateLimited) || !errors.Is(err, gitsource.ErrForge) {
				t.Fatalf("err = %v, want ErrRateLimited and ErrForge", err)
			}
			for _, want := range []string{tt.want, "retry after " + time.Now().UTC().Format("2006-01-02"), "(in "} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
			before := len(fx.gh.Requests())
			err = calls(fx, "plan")["Statuses"](t.Context(), fx.forge)
			sent := len(fx.gh.Requests()) - before
			if tt.sticky && (!errors.Is(err, ErrRateLimited) || !strings.Contains(err.Error(), "not asked again") || sent != 0) {
				t.Errorf("next call: err %v after %d requests; want refused without asking", err, sent)
			}
			if !tt.sticky && (err != nil || sent != 1) {
				t.Errorf("next call: err %v after %d requests; want it sent and answered", err, sent)
			}
		})
	}
}

func TestContextHonoured(t *testing.T) {
	fx := newFixture(t)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	// A server that never answers: only the deadline ends the request.
	// It reads the body first: net/http notices a client gone only then.
	done := make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		select {
		case <-r.Context().Done():
		case <-done:
		}
	}))
	t.Cleanup(hang.Close)
	t.Cleanup(func() { close(done) }) // runs first
	hung := fx.newForge(t, Options{Token: testToken, BaseURL: hang.URL})
	for name, call := range calls(fx, "plan") {
		t.Run(name, func(t *testing.T) {
			if err := call(canceled, fx.forge); !errors.Is(err, context.Canceled) || !errors.Is(err, gitsource.ErrForge) {
				t.Errorf("canceled: err = %v, want context.Canceled and ErrForge", err)
			}
			ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
			defer cancel()
			if err := call(ctx, hung); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("deadline: err = %v, want context.DeadlineExceeded", err)
			}
		})
	}
}
