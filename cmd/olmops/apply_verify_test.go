//go:build !olmops_cli

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

// apply --verify-keys applies a head signed by one of the key files and
// refuses, with exit 1 and nothing applied, one that is unsigned or
// signed by another key; key files it cannot use are errors (exit 2).
func TestApplyVerifyKeys(t *testing.T) {
	env := kube.Env(t)
	dir := plannedExamples(t)
	kc := envKubeconfig(t)
	t.Cleanup(kubetest.Rollout(t.Context(), env.Client, "", 20*time.Millisecond))
	release, releasePub := gittest.NewSigningKey(t, "Release")
	mallory, _ := gittest.NewSigningKey(t, "Mallory")
	_, sparePub := gittest.NewSigningKey(t, "Spare")
	sshRelease, sshReleasePub := gittest.NewSSHSigningKey(t, "ci@example.com")
	sshMallory, _ := gittest.NewSSHSigningKey(t, "mallory@example.com")
	keyDir := t.TempDir()
	for name, data := range map[string]string{"release.asc": releasePub, "spare.asc": sparePub, "junk.asc": "not a key", "ci.pub": sshReleasePub} {
		if err := os.WriteFile(filepath.Join(keyDir, name), []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	key := func(name string) string { return filepath.Join(keyDir, name) }
	head := func() string { return strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main")) }
	run := func(keys ...string) (string, string, int) {
		args := []string{"apply", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc}
		for _, k := range keys {
			args = append(args, "--verify-keys", k)
		}
		return runCLI(t, args...)
	}

	tests := []struct {
		name   string
		signer func() // makes the head to verify; nil keeps it
		keys   []string
		code   int
		want   string
	}{
		{"unsigned head refused", nil, []string{key("spare.asc"), key("release.asc")}, exitFindings, "it is not signed; nothing applied"},
		{"head signed by another key refused", func() { gittest.SignedCommit(t, dir, "main", "by mallory", mallory) },
			[]string{key("release.asc")}, exitFindings, "it is signed by key " + mallory.PrimaryKey.KeyIdString()},
		{"missing key file", nil, []string{key("nope.asc")}, exitError, "--verify-keys: open "},
		{"key file that is no key", nil, []string{key("junk.asc")}, exitError, "--verify-keys: key ring " + key("junk.asc")},
		{"signed head applied", func() { gittest.SignedCommit(t, dir, "main", "by release", release) },
			[]string{key("spare.asc"), key("release.asc")}, exitOK, "signed by Release <release@example.com>"},
		{"head SSH-signed by another key refused", func() { gittest.SSHSignedCommit(t, dir, "main", "by mallory", sshMallory) },
			[]string{key("release.asc"), key("ci.pub")}, exitFindings, "it is signed by SSH key SHA256:"},
		{"SSH-signed head applied", func() { gittest.SSHSignedCommit(t, dir, "main", "by ci", sshRelease) },
			[]string{key("release.asc"), key("ci.pub")}, exitOK, "signed by ci@example.com (key SHA256:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.signer != nil {
				tt.signer()
			}
			out, errOut, code := run(tt.keys...)
			if code != tt.code || !strings.Contains(errOut, tt.want) {
				t.Fatalf("exit %d, want %d with %q\n%s%s", code, tt.code, tt.want, out, errOut)
			}
			applied := strings.Contains(out, "Succeeded: 1 plans applied")
			if applied != (tt.code == exitOK) {
				t.Errorf("applied = %v with exit %d\n%s%s", applied, code, out, errOut)
			}
			if tt.code == exitFindings && !strings.Contains(errOut, "commit "+head()+" is not verified") {
				t.Errorf("the refusal does not name the head %s:\n%s", head(), errOut)
			}
		})
	}
}
