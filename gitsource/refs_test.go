package gitsource_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// ref is what the server's ref name points at; zero when absent.
func (rm remote) ref(t testing.TB, name string) plumbing.Hash {
	t.Helper()
	out := strings.TrimSpace(gittest.Git(t, rm.dir, "for-each-ref", "--format=%(objectname)", name))
	if out == "" {
		return plumbing.ZeroHash
	}
	return plumbing.NewHash(out)
}

// rev is the commit the revision expression rev names on the server.
func (rm remote) rev(t testing.TB, rev string) plumbing.Hash {
	t.Helper()
	return plumbing.NewHash(strings.TrimSpace(gittest.Git(t, rm.dir, "rev-parse", "--verify", rev+"^{commit}")))
}

// commitRef commits content on ref name from main, as last fetched.
func commitRef(t *testing.T, repo *gitsource.Repo, name, content string) plumbing.Hash {
	t.Helper()
	h, err := repo.Commit(t.Context(), gitsource.CommitRequest{
		Parent: resolve(t, repo, "main"), Ref: name, Message: "olmops: " + content, Author: author,
		Files: map[string][]byte{"x": []byte(content)},
	})
	if err != nil {
		t.Fatalf("Commit on %s: %v", name, err)
	}
	return h
}

func TestCommitRef(t *testing.T) {
	tests := []struct {
		name, branch, ref string
		wantErr           string
	}{
		{name: "olmops ref", ref: "refs/olmops/test/x"},
		{name: "notes ref", ref: gitsource.NotesRef},
		{name: "branch as a ref", ref: "refs/heads/olmops/y"},
		{name: "both", branch: "main", ref: "refs/olmops/x", wantErr: "exactly one of Branch and Ref"},
		{name: "neither", wantErr: "exactly one of Branch and Ref"},
		{name: "short name", ref: "olmops/x", wantErr: "invalid ref name"},
		{name: "bad name", ref: "refs/olmops/a..b", wantErr: "invalid ref name"},
		{name: "remote-tracking branch", ref: "refs/remotes/origin/main", wantErr: "remote-tracking"},
		{name: "remote-tracking ref", ref: "refs/remote-refs/origin/notes/olmops", wantErr: "remote-tracking"},
	}
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := repo.Commit(t.Context(), gitsource.CommitRequest{
				Parent: resolve(t, repo, "main"), Branch: tt.branch, Ref: tt.ref, Message: "m", Author: author,
				Files: map[string][]byte{"x": []byte(tt.name)},
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Commit = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Commit: %v", err)
			}
			if got := resolve(t, repo, tt.ref); got != h {
				t.Errorf("%s = %s, want %s", tt.ref, got, h)
			}
			if err := repo.PushRef(t.Context(), tt.ref, false); err != nil {
				t.Fatalf("PushRef: %v", err)
			}
			if got := rm.ref(t, tt.ref); got != h {
				t.Errorf("server %s = %s, want %s", tt.ref, got, h)
			}
			if got, err := repo.RemoteRef(t.Context(), tt.ref); err != nil || got != h {
				t.Errorf("RemoteRef after PushRef = %s, %v; want %s", got, err, h)
			}
		})
	}
}

func TestPushRefLease(t *testing.T) {
	const name = "refs/olmops/lease"
	rm := newRemote(t, baseFiles)
	ctx := t.Context()
	a, b := rm.open(t), rm.open(t)
	ha, hb := commitRef(t, a, name, "a"), commitRef(t, b, name, "b")
	if err := a.PushRef(ctx, name, false); err != nil {
		t.Fatalf("first PushRef: %v", err)
	}
	if err := b.PushRef(ctx, name, false); !errors.Is(err, gitsource.ErrNonFastForward) {
		t.Fatalf("PushRef of a diverged ref = %v, want ErrNonFastForward", err)
	}
	// b never saw the ref: even forced, it may only fast-forward it.
	if err := b.PushRef(ctx, name, true); !errors.Is(err, gitsource.ErrNonFastForward) {
		t.Fatalf("forced PushRef without a lease = %v, want ErrNonFastForward", err)
	}
	if got := rm.ref(t, name); got != ha {
		t.Fatalf("refused pushes moved the ref to %s", got)
	}

	stale := rm.open(t) // sees a's commit
	if err := b.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if got, err := b.RemoteRef(ctx, name); err != nil || got != ha {
		t.Fatalf("RemoteRef after Fetch = %s, %v; want %s", got, err, ha)
	}
	if err := b.PushRef(ctx, name, true); err != nil {
		t.Fatalf("forced PushRef under a current lease: %v", err)
	}
	if got := rm.ref(t, name); got != hb {
		t.Fatalf("server ref = %s, want the forced %s", got, hb)
	}
	if err := b.PushRef(ctx, name, true); err != nil {
		t.Errorf("PushRef of what the remote has = %v, want nil", err)
	}

	commitRef(t, stale, name, "stale")
	if err := stale.PushRef(ctx, name, true); !errors.Is(err, gitsource.ErrNonFastForward) {
		t.Fatalf("forced PushRef under a stale lease = %v, want ErrNonFastForward", err)
	}
	if got := rm.ref(t, name); got != hb {
		t.Errorf("stale lease moved the ref to %s", got)
	}
}

func TestPushRefRefused(t *testing.T) {
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	ctx := t.Context()
	commitRef(t, repo, "refs/custom/x", "x")
	tests := []struct {
		name    string
		ref     string
		force   bool
		wantErr error
	}{
		{name: "force main", ref: "refs/heads/main", force: true, wantErr: gitsource.ErrForceRefused},
		{name: "force a custom ref", ref: "refs/custom/x", force: true, wantErr: gitsource.ErrForceRefused},
		{name: "force notes of others", ref: "refs/notes/commits", force: true, wantErr: gitsource.ErrForceRefused},
		{name: "no local ref", ref: "refs/olmops/none", wantErr: gitsource.ErrNotFound},
		{name: "fast-forward a custom ref", ref: "refs/custom/x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := repo.PushRef(ctx, tt.ref, tt.force)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("PushRef(%s, %v) = %v, want %v", tt.ref, tt.force, err, tt.wantErr)
			}
		})
	}
}

func TestDeleteRef(t *testing.T) {
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	ctx := t.Context()
	commitRef(t, repo, "refs/olmops/x", "x")
	commitRef(t, repo, "refs/heads/olmops/b", "b")
	for _, name := range []string{"refs/olmops/x", "refs/heads/olmops/b"} {
		if err := repo.PushRef(ctx, name, false); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		ref     string
		wantErr error
	}{
		{ref: "refs/olmops/x"},
		{ref: "refs/heads/olmops/b"},
		{ref: "refs/olmops/never-there"},
		{ref: "refs/heads/main", wantErr: gitsource.ErrForceRefused},
		{ref: "refs/heads/olmopsx", wantErr: gitsource.ErrForceRefused},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			before := rm.ref(t, tt.ref)
			err := repo.DeleteRef(ctx, tt.ref)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("DeleteRef = %v, want %v", err, tt.wantErr)
				}
				if got := rm.ref(t, tt.ref); got != before {
					t.Errorf("refused DeleteRef moved the ref to %s", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("DeleteRef: %v", err)
			}
			if got := rm.ref(t, tt.ref); !got.IsZero() {
				t.Errorf("server still has %s at %s", tt.ref, got)
			}
			for _, read := range []func() error{
				func() error { _, err := repo.RemoteRef(ctx, tt.ref); return err },
				func() error { _, err := repo.Resolve(ctx, tt.ref); return err },
			} {
				if err := read(); !errors.Is(err, gitsource.ErrNotFound) {
					t.Errorf("reading the deleted ref: %v, want ErrNotFound", err)
				}
			}
		})
	}
}

// TestFetchOlmopsRefs checks that Fetch brings the notes and olmops refs
// into their remote-tracking names and prunes them with the remote.
func TestFetchOlmopsRefs(t *testing.T) {
	rm := newRemote(t, baseFiles)
	main := rm.head(t, "main")
	gittest.Git(t, rm.dir, "notes", "--ref=olmops", "add", "-m", "hello", main.String())
	gittest.Git(t, rm.dir, "update-ref", "refs/olmops/foo", main.String())
	gittest.Git(t, rm.dir, "update-ref", "refs/other/bar", main.String())
	repo := rm.open(t)
	ctx := t.Context()
	if got, err := repo.RemoteRef(ctx, gitsource.NotesRef); err != nil || got != rm.ref(t, gitsource.NotesRef) {
		t.Errorf("RemoteRef(notes) = %s, %v; want %s", got, err, rm.ref(t, gitsource.NotesRef))
	}
	if got, err := repo.RemoteRef(ctx, "refs/olmops/foo"); err != nil || got != main {
		t.Errorf("RemoteRef(refs/olmops/foo) = %s, %v; want %s", got, err, main)
	}
	if _, err := repo.RemoteRef(ctx, "refs/other/bar"); !errors.Is(err, gitsource.ErrNotFound) {
		t.Errorf("RemoteRef(refs/other/bar) = %v: only olmops' refs are fetched", err)
	}
	if _, err := repo.Resolve(ctx, gitsource.NotesRef); err == nil {
		t.Error("Fetch wrote the local notes ref; it should only stage pushes")
	}

	gittest.Git(t, rm.dir, "update-ref", "-d", "refs/olmops/foo")
	if err := repo.Fetch(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := repo.RemoteRef(ctx, "refs/olmops/foo"); !errors.Is(err, gitsource.ErrNotFound) {
		t.Errorf("RemoteRef of a ref the remote deleted = %v, want ErrNotFound", err)
	}
}

func TestLocalRepoRefs(t *testing.T) {
	rm := newRemote(t, baseFiles)
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: rm.dir}) // no origin
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if repo.HasRemote() {
		t.Fatal("HasRemote of a repository without origin")
	}
	h := commitRef(t, repo, "refs/olmops/x", "x")
	if got, err := repo.RemoteRef(ctx, "refs/olmops/x"); err != nil || got != h {
		t.Errorf("RemoteRef = %s, %v; want the local %s", got, err, h)
	}
	if err := repo.PushRef(ctx, "refs/olmops/x", false); !errors.Is(err, gitsource.ErrNoRemote) {
		t.Errorf("PushRef = %v, want ErrNoRemote", err)
	}
	if err := repo.DeleteRef(ctx, "refs/olmops/x"); err != nil {
		t.Fatalf("DeleteRef: %v", err)
	}
	if got := rm.ref(t, "refs/olmops/x"); !got.IsZero() {
		t.Errorf("local ref still at %s", got)
	}
}

func TestIsAncestor(t *testing.T) {
	rm := newRemote(t, map[string][]byte{"a": []byte("1")})
	c1 := rm.head(t, "main")
	c2 := rm.commit(t, "main", gittest.Change{Files: map[string][]byte{"a": []byte("2")}, Message: "second\n\nwith a body"})
	gittest.Git(t, rm.dir, "branch", "side", c1.String())
	s1 := rm.commit(t, "side", gittest.Change{Files: map[string][]byte{"b": []byte("b")}})
	repo := rm.open(t)
	missing := plumbing.NewHash(strings.Repeat("1", 40))
	tests := []struct {
		name    string
		a, b    plumbing.Hash
		want    bool
		wantErr error
	}{
		{name: "parent", a: c1, b: c2, want: true},
		{name: "child", a: c2, b: c1},
		{name: "itself", a: c2, b: c2, want: true},
		{name: "other branch", a: s1, b: c2},
		{name: "fork point", a: c1, b: s1, want: true},
		{name: "missing ancestor", a: missing, b: c2, wantErr: gitsource.ErrNotFound},
		{name: "missing descendant", a: c1, b: missing, wantErr: gitsource.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := repo.IsAncestor(t.Context(), tt.a, tt.b)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) || got != tt.want {
				t.Errorf("IsAncestor = %v, %v; want %v, %v", got, err, tt.want, tt.wantErr)
			}
		})
	}
	if info, err := repo.CommitInfo(t.Context(), c2); err != nil || info.Message != "second\n\nwith a body\n" {
		t.Errorf("CommitInfo = %+v, %v", info, err)
	}
	if _, err := repo.CommitInfo(t.Context(), missing); !errors.Is(err, gitsource.ErrNotFound) {
		t.Errorf("CommitInfo(missing) = %v, want ErrNotFound", err)
	}
}
