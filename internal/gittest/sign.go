package gittest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ProtonMail/go-crypto/openpgp"
	"github.com/ProtonMail/go-crypto/openpgp/armor"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// NewSigningKey makes an OpenPGP key for signing commits in a test, and
// returns it with its armored public key, as a Secret or key file holds it.
func NewSigningKey(t testing.TB, name string) (*openpgp.Entity, string) {
	t.Helper()
	e, err := openpgp.NewEntity(name, "", strings.ToLower(name)+"@example.com", nil)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w, err := armor.Encode(&buf, openpgp.PublicKeyType, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Serialize(w); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return e, buf.String()
}

// SignedCommit adds a commit that changes no file on top of branch of the
// repository dir (bare or not), signed with key through go-git, or
// unsigned when key is nil, and returns its hash. The tree stays as it
// was, so a checked-out worktree of dir stays clean.
func SignedCommit(t testing.TB, dir, branch, message string, key *openpgp.Entity) string {
	t.Helper()
	work := t.TempDir()
	Git(t, work, "init", "--quiet", "--initial-branch="+branch)
	Git(t, work, "fetch", "--quiet", dir, "refs/heads/"+branch)
	Git(t, work, "checkout", "--quiet", "-B", branch, "FETCH_HEAD")
	repo, err := git.PlainOpen(work)
	if err != nil {
		t.Fatal(err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	who := &object.Signature{Name: "gittest", Email: "gittest@example.com", When: time.Now()}
	h, err := wt.Commit(message, &git.CommitOptions{AllowEmptyCommits: true, Author: who, Committer: who, SignKey: key})
	if err != nil {
		t.Fatal(err)
	}
	// --update-head-ok: dir may have branch checked out; the tree is
	// unchanged, so its worktree and index still match.
	Git(t, dir, "fetch", "--quiet", "--update-head-ok", work, "+refs/heads/"+branch+":refs/heads/"+branch)
	return h.String()
}

// NewSSHSigningKey makes an ed25519 SSH key with ssh-keygen for signing
// commits in a test, and returns the private key's file and the public
// key's authorized_keys line (commented name).
func NewSSHSigningKey(t testing.TB, name string) (keyFile, pub string) {
	t.Helper()
	if _, err := exec.LookPath("ssh-keygen"); err != nil {
		t.Skip("ssh-keygen not installed (make deps installs openssh)")
	}
	keyFile = filepath.Join(t.TempDir(), "id_ed25519")
	out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", keyFile).CombinedOutput()
	if err != nil {
		t.Fatalf("gittest: ssh-keygen: %v: %s", err, out)
	}
	data, err := os.ReadFile(keyFile + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return keyFile, string(data)
}

// SSHSignedCommit adds a commit that changes no file on top of branch of
// the repository dir, signed by git itself with gpg.format=ssh and the
// private key in keyFile (through ssh-keygen -Y sign), and returns its
// hash.
func SSHSignedCommit(t testing.TB, dir, branch, message, keyFile string) string {
	t.Helper()
	work := t.TempDir()
	Git(t, work, "init", "--quiet", "--initial-branch="+branch)
	Git(t, work, "fetch", "--quiet", dir, "refs/heads/"+branch)
	Git(t, work, "checkout", "--quiet", "-B", branch, "FETCH_HEAD")
	Git(t, work, "-c", "gpg.format=ssh", "-c", "user.signingkey="+keyFile,
		"commit", "--quiet", "--allow-empty", "-S", "-m", message)
	Git(t, dir, "fetch", "--quiet", "--update-head-ok", work, "+refs/heads/"+branch+":refs/heads/"+branch)
	return strings.TrimSpace(Git(t, work, "rev-parse", "HEAD"))
}
