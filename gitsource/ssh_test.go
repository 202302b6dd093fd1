package gitsource_test

import (
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// SSH git auth against OpenSSH's sshd on 127.0.0.1: the key opens the
// repository only when sshd accepts it and the host key is the one
// known_hosts names.
func TestSSHAuth(t *testing.T) {
	srv := gittest.NewSSHServer(t)
	dir := srv.CreateRepo(t, "fleet")
	want := gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"olmops.yaml": []byte("# empty\n")}})
	tests := []struct {
		name    string
		auth    gitsource.Auth
		wantErr string
	}{
		{name: "authorized key, known host", auth: gitsource.Auth{SSHKey: srv.UserKey, SSHKnownHosts: srv.KnownHosts}},
		{name: "another host key", auth: gitsource.Auth{SSHKey: srv.UserKey, SSHKnownHosts: srv.OtherKnownHosts}, wantErr: "key mismatch"},
		{name: "key not authorized", auth: gitsource.Auth{SSHKey: srv.OtherKey, SSHKnownHosts: srv.KnownHosts}, wantErr: "unable to authenticate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("SSH_AUTH_SOCK", "") // only the key given may be tried
			repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: srv.RepoURL("fleet"), CacheDir: t.TempDir(), Auth: tt.auth})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Open = %v, want an error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			got, err := repo.Resolve(t.Context(), "main")
			if err != nil || got.String() != want {
				t.Errorf("Resolve(main) = %v, %v; want %s", got, err, want)
			}
		})
	}
}

// The fetch size cap holds over SSH too: the pack is counted as it
// arrives from sshd, a fetch past the cap moves no ref and keeps no
// partial pack, and a first clone past it leaves no cache. (A cap above
// the repository is the first Open, which must succeed.)
func TestMaxFetchSizeSSH(t *testing.T) {
	srv := gittest.NewSSHServer(t)
	noise := make([]byte, 200<<10)
	rand.Read(noise)
	t.Setenv("SSH_AUTH_SOCK", "")
	const limit = 64 << 10
	dir := srv.CreateRepo(t, "fleet")
	gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"olmops.yaml": []byte("kind: Repository\n")}})
	cache := t.TempDir()
	opts := gitsource.Options{URL: srv.RepoURL("fleet"), CacheDir: cache, MaxFetchSize: limit,
		Auth: gitsource.Auth{SSHKey: srv.UserKey, SSHKnownHosts: srv.KnownHosts}}
	repo, err := gitsource.Open(t.Context(), opts)
	if err != nil {
		t.Fatalf("Open below the cap: %v", err)
	}
	before := resolve(t, repo, "main")
	gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"big.bin": noise}})
	checkCapped(t, repo.Fetch(t.Context()), limit, true)
	if got := resolve(t, repo, "main"); got != before {
		t.Errorf("main = %s after the refused fetch, want %s", got, before)
	}
	if partial, _ := filepath.Glob(filepath.Join(cache, "*", "objects", "pack", "tmp_pack_*")); len(partial) > 0 {
		t.Errorf("the refused fetch left %v", partial)
	}
	fresh := t.TempDir()
	opts.CacheDir = fresh
	_, err = gitsource.Open(t.Context(), opts)
	checkCapped(t, err, limit, true)
	if entries, _ := os.ReadDir(fresh); len(entries) > 0 {
		t.Errorf("a refused clone left %v in the cache", entries)
	}
}
