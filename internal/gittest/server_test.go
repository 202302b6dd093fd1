package gittest_test

import (
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

// TestServerLargeCLIPush pushes several megabytes with the git CLI, which
// sends a body larger than http.postBuffer chunked: the server must take
// it although net/http/cgi refuses chunked bodies.
func TestServerLargeCLIPush(t *testing.T) {
	s := gittest.NewServer(t, gittest.ServerOptions{Username: "u", Password: "p"})
	s.CreateRepo(t, "big")
	url := strings.Replace(s.RepoURL("big"), "http://", "http://u:p@", 1)
	work := t.TempDir()
	gittest.Git(t, work, "init", "--quiet", "--initial-branch=main")
	for _, name := range []string{"a.bin", "b.bin", "c.bin"} {
		data := make([]byte, 2<<20)
		rand.Read(data)
		if err := os.WriteFile(filepath.Join(work, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Git(t, work, "add", "--all")
	gittest.Git(t, work, "commit", "--quiet", "-m", "big")
	gittest.Git(t, work, "push", "--quiet", url, "HEAD:refs/heads/main")
	want := gittest.Git(t, work, "rev-parse", "HEAD")
	if got := gittest.Git(t, s.RepoDir("big"), "rev-parse", "main"); got != want {
		t.Errorf("server main = %s, want %s", got, want)
	}
}

func TestServerAuth(t *testing.T) {
	s := gittest.NewServer(t, gittest.ServerOptions{Username: "u", Password: "p"})
	s.CreateRepo(t, "r")
	work := t.TempDir()
	gittest.Git(t, work, "ls-remote", strings.Replace(s.RepoURL("r"), "http://", "http://u:p@", 1))
	cmdErr := gitFails(t, work, "ls-remote", strings.Replace(s.RepoURL("r"), "http://", "http://u:wrong@", 1))
	if !strings.Contains(cmdErr, "Authentication failed") {
		t.Errorf("wrong password: %s", cmdErr)
	}
}

// gitFails runs git and returns its output, failing the test if git
// succeeds.
func gitFails(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_TERMINAL_PROMPT=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Fatalf("git %v succeeded, want a failure", args)
	}
	return string(out)
}
