package gitsource_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

func TestOpen(t *testing.T) {
	rm := newRemote(t, map[string][]byte{"olmops.yaml": []byte("kind: Repository\n")})
	want := rm.head(t, "main")
	tests := []struct {
		name    string
		opts    func(t *testing.T) gitsource.Options
		wantErr error  // errors.Is
		errText string // and the message contains
	}{
		{name: "http basic auth", opts: func(t *testing.T) gitsource.Options {
			return gitsource.Options{URL: rm.url, CacheDir: t.TempDir(), Auth: testAuth}
		}},
		{name: "http token", opts: func(t *testing.T) gitsource.Options {
			return gitsource.Options{URL: rm.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: testUser, Token: testPassword}}
		}},
		{name: "wrong password", opts: func(t *testing.T) gitsource.Options {
			return gitsource.Options{URL: rm.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: testUser, Password: "wrong"}}
		}, wantErr: gitsource.ErrAuth, errText: "authentication failed"},
		{name: "no credentials", opts: func(t *testing.T) gitsource.Options {
			return gitsource.Options{URL: rm.url, CacheDir: t.TempDir()}
		}, wantErr: gitsource.ErrAuth, errText: rm.url},
		{name: "file URL", opts: func(t *testing.T) gitsource.Options {
			return gitsource.Options{URL: "file://" + filepath.ToSlash(rm.dir), CacheDir: t.TempDir()}
		}},
		{name: "local path", opts: func(t *testing.T) gitsource.Options {
			return gitsource.Options{Path: rm.dir}
		}},
		{name: "both URL and path", opts: func(t *testing.T) gitsource.Options {
			return gitsource.Options{URL: rm.url, Path: rm.dir}
		}, errText: "exactly one of URL and Path"},
		{name: "URL without cache", opts: func(t *testing.T) gitsource.Options {
			return gitsource.Options{URL: rm.url}
		}, errText: "CacheDir is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := tt.opts(t)
			repo, err := gitsource.Open(t.Context(), opts)
			if tt.wantErr != nil || tt.errText != "" {
				if err == nil {
					t.Fatal("Open succeeded, want an error")
				}
				if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
					t.Errorf("error %v, want errors.Is %v", err, tt.wantErr)
				}
				if !strings.Contains(err.Error(), tt.errText) {
					t.Errorf("error %q does not mention %q", err, tt.errText)
				}
				if strings.Contains(err.Error(), testPassword) {
					t.Errorf("error %q shows the password", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if got := resolve(t, repo, "main"); got != want {
				t.Errorf("main = %s, want %s", got, want)
			}
		})
	}
}

func TestOpenFailedCloneLeavesNoCache(t *testing.T) {
	rm := newRemote(t, map[string][]byte{"a": []byte("a")})
	cache := t.TempDir()
	_, err := gitsource.Open(t.Context(), gitsource.Options{URL: rm.url, CacheDir: cache, Auth: gitsource.Auth{Username: "x", Password: "y"}})
	if !errors.Is(err, gitsource.ErrAuth) {
		t.Fatalf("Open with wrong credentials: %v, want ErrAuth", err)
	}
	// The next Open with the right credentials clones afresh.
	repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: rm.url, CacheDir: cache, Auth: testAuth})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if got, want := resolve(t, repo, "main"), rm.head(t, "main"); got != want {
		t.Errorf("main = %s, want %s", got, want)
	}
}

func TestFetch(t *testing.T) {
	rm := newRemote(t, map[string][]byte{"a.yaml": []byte("one\n")})
	cache := t.TempDir()
	opts := gitsource.Options{URL: rm.url, CacheDir: cache, Auth: testAuth}
	repo, err := gitsource.Open(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	first := resolve(t, repo, "main")

	second := rm.commit(t, "main", gittest.Change{Files: map[string][]byte{"a.yaml": []byte("two\n")}})
	rm.commit(t, "feature", gittest.Change{Files: map[string][]byte{"b.yaml": []byte("b\n")}})
	if got := resolve(t, repo, "main"); got != first {
		t.Fatalf("main moved before a fetch: %s", got)
	}
	if err := repo.Fetch(t.Context()); err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	if got := resolve(t, repo, "main"); got != second {
		t.Errorf("after Fetch main = %s, want %s", got, second)
	}
	if _, err := repo.Resolve(t.Context(), "feature"); err != nil {
		t.Errorf("new branch after Fetch: %v", err)
	}

	// A later Open re-uses the cache and fetches.
	third := rm.commit(t, "main", gittest.Change{Files: map[string][]byte{"a.yaml": []byte("three\n")}})
	again, err := gitsource.Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("second Open: %v", err)
	}
	if got := resolve(t, again, "main"); got != third {
		t.Errorf("after re-Open main = %s, want %s", got, third)
	}
	snap, err := again.Snapshot(t.Context(), third)
	if err != nil {
		t.Fatal(err)
	}
	if data, err := fs.ReadFile(snap.FS(), "a.yaml"); err != nil || string(data) != "three\n" {
		t.Errorf("a.yaml = %q, %v", data, err)
	}
	entries, err := filepath.Glob(filepath.Join(cache, "*"))
	if err != nil || len(entries) != 1 {
		t.Errorf("cache holds %v, want one clone", entries)
	}
}

func TestResolve(t *testing.T) {
	rm := newRemote(t, map[string][]byte{"a": []byte("1")})
	c1 := rm.head(t, "main")
	c2 := rm.commit(t, "main", gittest.Change{Files: map[string][]byte{"a": []byte("2")}})
	gittest.Git(t, rm.dir, "tag", "v1", c1.String())
	gittest.Git(t, rm.dir, "tag", "-a", "-m", "annotated", "v2", c2.String())
	repo := rm.open(t)
	tests := []struct {
		ref  string
		want plumbing.Hash
	}{
		{"main", c2},
		{"refs/remotes/origin/main", c2},
		{"v1", c1},
		{"v2", c2},
		{"refs/tags/v2", c2},
		{c1.String(), c1},
		{c1.String()[:8], c1},
		{"main~1", c1},
		{"missing", plumbing.ZeroHash},
		{strings.Repeat("0", 40), plumbing.ZeroHash},
	}
	for _, tt := range tests {
		t.Run(tt.ref, func(t *testing.T) {
			got, err := repo.Resolve(t.Context(), tt.ref)
			if tt.want.IsZero() {
				if !errors.Is(err, gitsource.ErrNotFound) {
					t.Errorf("Resolve(%q) = %s, %v; want ErrNotFound", tt.ref, got, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("Resolve(%q) = %s, %v; want %s", tt.ref, got, err, tt.want)
			}
		})
	}
}

// TestOpenKeepsURLCredentialsOffDisk: credentials given in the URL
// authenticate the clone and fetches but are never written into the cache
// clone's config, and only olmops can read the cache.
func TestOpenKeepsURLCredentialsOffDisk(t *testing.T) {
	rm := newRemote(t, map[string][]byte{"a": []byte("a")})
	withCreds := strings.Replace(rm.url, "://", "://"+testUser+":"+testPassword+"@", 1)
	cache := t.TempDir()
	repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: withCreds, CacheDir: cache})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if err := repo.Fetch(t.Context()); err != nil {
		t.Fatalf("Fetch: %v", err)
	}
	fi, err := os.Stat(cache)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		t.Errorf("cache folder mode %v, want 0700", fi.Mode().Perm())
	}
	err = filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(data), testPassword) {
			t.Errorf("%s holds the password", p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}
