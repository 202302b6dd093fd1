package gitsource_test

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
	"golang.org/x/crypto/ssh"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// Commits signed by git with gpg.format=ssh (ssh-keygen -Y sign) verify
// against authorized_keys or allowed_signers lines; an unknown key, a
// rewritten commit, a signature of another namespace and an unsigned
// commit are refused.
func TestVerifyCommitSSH(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--initial-branch=main")
	gittest.Git(t, dir, "commit", "--quiet", "--allow-empty", "-m", "root")
	release, releasePub := gittest.NewSSHSigningKey(t, "release@example.com")
	mallory, _ := gittest.NewSSHSigningKey(t, "mallory@example.com")
	_, sparePub := gittest.NewSSHSigningKey(t, "spare@example.com")
	pgpKey, pgpPub := gittest.NewSigningKey(t, "Release")
	signed := gittest.SSHSignedCommit(t, dir, "main", "signed", release)
	other := gittest.SSHSignedCommit(t, dir, "main", "signed by mallory", mallory)
	unsigned := gittest.SignedCommit(t, dir, "main", "unsigned", nil)
	pgpSigned := gittest.SignedCommit(t, dir, "main", "gpg", pgpKey)
	tampered := rewrite(t, dir, signed, func(c *object.Commit) { c.Message = "signed, then rewritten" })
	fileSig := rewrite(t, dir, signed, func(c *object.Commit) {
		c.PGPSignature = signFile(t, release, c)
	})
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer repo.Close()

	fp := func(line string) string {
		k, _, _, _, err := ssh.ParseAuthorizedKey([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		return ssh.FingerprintSHA256(k)
	}
	allowed := "release@example.com " + strings.TrimSuffix(releasePub, "release@example.com\n")
	rings := []gitsource.KeyRing{
		{Name: "spare.sshpub", Armored: "# spare\n" + sparePub, Format: gitsource.SSH},
		{Name: "release.sshpub", Armored: releasePub, Format: gitsource.SSH},
		{Name: "release.asc", Armored: pgpPub},
	}
	tests := []struct {
		name   string
		commit string
		keys   []gitsource.KeyRing
		want   string // "" verifies; else in the UnverifiedError's reason
	}{
		{"signed by a listed key", signed, rings, ""},
		{"allowed_signers line", signed, []gitsource.KeyRing{{Name: "release.sshpub", Armored: allowed, Format: gitsource.SSH}}, ""},
		{"signed by another key", other, rings, "signed by SSH key " + fp(mustRead(t, mallory+".pub")) + ", which none"},
		{"rewritten after signing", tampered, rings, "its SSH signature by key " + fp(releasePub) + " does not verify"},
		{"signed in another namespace", fileSig, rings, "namespace does not match"},
		{"unsigned", unsigned, rings, "it is not signed"},
		{"SSH signature, OpenPGP keys only", signed, rings[2:], "no SSH keys are configured"},
		{"OpenPGP signature, SSH keys only", pgpSigned, rings[:2], "no OpenPGP keys are configured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := repo.VerifyCommit(t.Context(), plumbing.NewHash(tt.commit), tt.keys)
			if tt.want == "" {
				if err != nil || s.KeyRing != "release.sshpub" || s.Identity != "release@example.com" || s.KeyID != fp(releasePub) {
					t.Fatalf("VerifyCommit = %+v, %v", s, err)
				}
				return
			}
			var ue *gitsource.UnverifiedError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), tt.want) || s != nil {
				t.Fatalf("VerifyCommit = %+v, %v; want an UnverifiedError with %q", s, err, tt.want)
			}
		})
	}
	if s, err := repo.VerifyCommit(t.Context(), plumbing.NewHash(pgpSigned), rings); err != nil || s.KeyRing != "release.asc" {
		t.Errorf("OpenPGP commit with mixed key rings: %+v, %v", s, err)
	}
}

// Key files that do not say what they trust are refused as themselves.
func TestParseKeyRingsSSH(t *testing.T) {
	_, pub := gittest.NewSSHSigningKey(t, "release@example.com")
	for _, tt := range []struct{ text, want string }{
		{"ssh-ed25519 not-base64", "ssh: no key found"},
		{"cert-authority " + pub, `option "cert-authority" is not supported`},
		{`namespaces="file" ` + pub, `option "namespaces=\"file\"" is not supported`},
	} {
		err := gitsource.ParseKeyRings([]gitsource.KeyRing{{Name: "k.sshpub", Armored: tt.text, Format: gitsource.SSH}})
		if err == nil || !strings.Contains(err.Error(), "key ring k.sshpub: line 1: "+tt.want) {
			t.Errorf("%q: %v, want %q", tt.text, err, tt.want)
		}
	}
	for _, text := range []string{"", "# only a comment\n"} {
		err := gitsource.ParseKeyRings([]gitsource.KeyRing{{Name: "k.sshpub", Armored: text, Format: gitsource.SSH}})
		if err == nil || err.Error() != "key ring k.sshpub: no SSH public keys" {
			t.Errorf("%q: %v", text, err)
		}
	}
	if err := gitsource.ParseKeyRings([]gitsource.KeyRing{{Name: "k.sshpub", Armored: pub, Format: gitsource.SSH}}); err != nil {
		t.Error(err)
	}
}

// signFile signs c's content as ssh-keygen -Y sign -n file would sign a
// file: a valid signature by the right key, for another purpose.
func signFile(t *testing.T, keyFile string, c *object.Commit) string {
	t.Helper()
	obj := &plumbing.MemoryObject{}
	if err := c.EncodeWithoutSignature(obj); err != nil {
		t.Fatal(err)
	}
	r, err := obj.Reader()
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	payload := filepath.Join(t.TempDir(), "payload")
	if err := os.WriteFile(payload, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("ssh-keygen", "-Y", "sign", "-n", "file", "-f", keyFile, payload).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen -Y sign: %v: %s", err, out)
	}
	return mustRead(t, payload+".sig")
}

func mustRead(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
