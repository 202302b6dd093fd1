package gitsource_test

import (
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
