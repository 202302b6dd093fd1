package gitsource_test

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"testing"
	"time"

	"github.com/olmops/olmops/gitsource"
)

// commitOn commits files on top of the remote's branch as last fetched.
func commitOn(t *testing.T, ctx context.Context, repo *gitsource.Repo, branch string, files map[string][]byte) error {
	t.Helper()
	parent, err := repo.Resolve(ctx, branch)
	if err != nil {
		return err
	}
	_, err = repo.Commit(ctx, gitsource.CommitRequest{Parent: parent, Branch: branch, Files: files, Message: "olmops: plan", Author: author})
	return err
}

func TestPush(t *testing.T) {
	for _, branch := range []string{"main", "olmops/etcd-0.9.4"} {
		t.Run(branch, func(t *testing.T) {
			rm := newRemote(t, baseFiles)
			repo := rm.open(t)
			h, err := repo.Commit(t.Context(), gitsource.CommitRequest{
				Parent: resolve(t, repo, "main"), Branch: branch, Message: "olmops: plan", Author: author,
				Files: map[string][]byte{"clusters/prod/plans/x.yaml": []byte(branch)},
			})
			if err != nil {
				t.Fatal(err)
			}
			if err := repo.Push(t.Context(), branch, false); err != nil {
				t.Fatalf("Push: %v", err)
			}
			if got := rm.head(t, branch); got != h {
				t.Errorf("server %s = %s, want %s", branch, got, h)
			}
			// The remote-tracking branch follows, so the next plan starts there.
			if got := resolve(t, repo, branch); got != h {
				t.Errorf("Resolve(%s) after Push = %s, want %s", branch, got, h)
			}
			if err := repo.Push(t.Context(), branch, false); err != nil {
				t.Errorf("second Push = %v, want nil (up to date)", err)
			}
		})
	}
}

func TestPushRace(t *testing.T) {
	rm := newRemote(t, baseFiles)
	first, second := rm.open(t), rm.open(t)
	ctx := t.Context()

	if err := commitOn(t, ctx, first, "main", map[string][]byte{"clusters/prod/plans/a.yaml": []byte("a\n")}); err != nil {
		t.Fatal(err)
	}
	if err := commitOn(t, ctx, second, "main", map[string][]byte{"clusters/prod/plans/b.yaml": []byte("b\n")}); err != nil {
		t.Fatal(err)
	}
	if err := first.Push(ctx, "main", false); err != nil {
		t.Fatalf("first Push: %v", err)
	}
	err := second.Push(ctx, "main", false)
	if !errors.Is(err, gitsource.ErrNonFastForward) {
		t.Fatalf("second Push = %v, want ErrNonFastForward", err)
	}

	attempts := 0
	err = gitsource.RetryOnConflict(ctx, 3, time.Millisecond, func(ctx context.Context) error {
		attempts++
		if attempts > 1 { // the first attempt re-pushes the stale commit
			if err := second.Fetch(ctx); err != nil {
				return err
			}
			if err := commitOn(t, ctx, second, "main", map[string][]byte{"clusters/prod/plans/b.yaml": []byte("b\n")}); err != nil {
				return err
			}
		}
		return second.Push(ctx, "main", false)
	})
	if err != nil {
		t.Fatalf("RetryOnConflict: %v", err)
	}
	if attempts != 2 {
		t.Errorf("attempts = %d, want 2", attempts)
	}
	snap, err := second.Snapshot(ctx, rm.head(t, "main"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"clusters/prod/plans/a.yaml", "clusters/prod/plans/b.yaml"} {
		if _, err := fs.Stat(snap.FS(), name); err != nil {
			t.Errorf("server main lacks %s: %v", name, err)
		}
	}
}

func TestForcePush(t *testing.T) {
	tests := []struct {
		branch  string
		wantErr error
	}{
		{branch: "main", wantErr: gitsource.ErrForceRefused},
		{branch: "release/v1", wantErr: gitsource.ErrForceRefused},
		{branch: "olmopsx", wantErr: gitsource.ErrForceRefused},
		{branch: "olmops/etcd-prod"},
	}
	for _, tt := range tests {
		t.Run(tt.branch, func(t *testing.T) {
			rm := newRemote(t, baseFiles)
			ctx := t.Context()
			a, b := rm.open(t), rm.open(t)
			// Both clones write the branch from main: b's commit does not
			// descend from a's.
			for _, repo := range []*gitsource.Repo{a, b} {
				if _, err := repo.Commit(ctx, gitsource.CommitRequest{
					Parent: resolve(t, repo, "main"), Branch: tt.branch, Message: "m", Author: author,
					Files: map[string][]byte{"x": []byte(fmt.Sprintf("%p", repo))},
				}); err != nil {
					t.Fatal(err)
				}
			}
			if err := a.Push(ctx, tt.branch, false); err != nil {
				t.Fatalf("first Push: %v", err)
			}
			err := b.Push(ctx, tt.branch, true)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), "olmops/") {
					t.Fatalf("force Push = %v, want %v", err, tt.wantErr)
				}
				if got, want := rm.head(t, tt.branch), resolve(t, a, "refs/heads/"+tt.branch); got != want {
					t.Errorf("refused force push moved the branch to %s", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("force Push: %v", err)
			}
			if got, want := rm.head(t, tt.branch), resolve(t, b, "refs/heads/"+tt.branch); got != want {
				t.Errorf("server branch = %s, want the forced %s", got, want)
			}
		})
	}
}

// TestLargePush sends several megabytes of incompressible files: the git
// client sends such a request body chunked.
func TestLargePush(t *testing.T) {
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	files := map[string][]byte{}
	for i := range 6 {
		data := make([]byte, 1<<20)
		rand.Read(data)
		files[fmt.Sprintf("big/%d.bin", i)] = data
	}
	if err := commitOn(t, t.Context(), repo, "main", files); err != nil {
		t.Fatal(err)
	}
	if err := repo.Push(t.Context(), "main", false); err != nil {
		t.Fatalf("Push of %d MiB: %v", len(files), err)
	}
	if got, want := rm.head(t, "main"), resolve(t, repo, "refs/heads/main"); got != want {
		t.Fatalf("server main = %s, want %s", got, want)
	}
	other := rm.open(t)
	snap := snapshot(t, other, "main")
	for name, data := range files {
		got, err := fs.ReadFile(snap.FS(), name)
		if err != nil || string(got) != string(data) {
			t.Errorf("%s after a fresh clone: %d bytes, %v; want %d bytes", name, len(got), err, len(data))
		}
	}
}

func TestRetryOnConflict(t *testing.T) {
	conflict := fmt.Errorf("push: %w", gitsource.ErrNonFastForward)
	other := errors.New("disk full")
	tests := []struct {
		name      string
		attempts  int
		results   []error // what fn returns, call by call
		wantCalls int
		wantErr   error
	}{
		{name: "first try", attempts: 3, results: []error{nil}, wantCalls: 1},
		{name: "after two conflicts", attempts: 3, results: []error{conflict, conflict, nil}, wantCalls: 3},
		{name: "out of attempts", attempts: 2, results: []error{conflict, conflict, nil}, wantCalls: 2, wantErr: gitsource.ErrNonFastForward},
		{name: "other error stops", attempts: 5, results: []error{conflict, other, nil}, wantCalls: 2, wantErr: other},
		{name: "zero attempts means one", attempts: 0, results: []error{conflict}, wantCalls: 1, wantErr: gitsource.ErrNonFastForward},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := 0
			err := gitsource.RetryOnConflict(t.Context(), tt.attempts, time.Microsecond, func(context.Context) error {
				calls++
				return tt.results[calls-1]
			})
			if calls != tt.wantCalls {
				t.Errorf("calls = %d, want %d", calls, tt.wantCalls)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("error = %v, want %v", err, tt.wantErr)
			}
		})
	}

	t.Run("context ends the wait", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		calls := 0
		err := gitsource.RetryOnConflict(ctx, 10, time.Hour, func(context.Context) error {
			calls++
			cancel()
			return conflict
		})
		if calls != 1 || !errors.Is(err, context.Canceled) || !errors.Is(err, gitsource.ErrNonFastForward) {
			t.Errorf("calls = %d, error = %v; want 1 call, Canceled wrapping the conflict", calls, err)
		}
	})
}
