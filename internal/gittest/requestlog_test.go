package gittest_test

import (
	"bytes"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

// TestServerRequestLog pushes and fetches through a server with a
// RequestLog: each request that reached http-backend is a line naming its
// service and CPU time, and the push still lands.
func TestServerRequestLog(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("RequestLog needs bash")
	}
	var log syncBuffer
	s := gittest.NewServer(t, gittest.ServerOptions{RequestLog: &log})
	s.CreateRepo(t, "r")
	work := t.TempDir()
	gittest.Git(t, work, "init", "--quiet", "--initial-branch=main")
	gittest.Git(t, work, "commit", "--quiet", "--allow-empty", "-m", "one")
	gittest.Git(t, work, "push", "--quiet", s.RepoURL("r"), "HEAD:refs/heads/main")
	gittest.Git(t, t.TempDir(), "clone", "--quiet", s.RepoURL("r"), "c")
	if got, want := gittest.Git(t, s.RepoDir("r"), "rev-parse", "main"), gittest.Git(t, work, "rev-parse", "HEAD"); got != want {
		t.Errorf("server main = %s, want %s", got, want)
	}
	for _, want := range []string{
		`GET /r\.git/info/refs\?service=git-receive-pack`,
		`POST /r\.git/git-receive-pack\?`,
		`GET /r\.git/info/refs\?service=git-upload-pack`,
		`POST /r\.git/git-upload-pack\?`,
	} {
		re := regexp.MustCompile(`(?m)^gittest-cgi ` + want + ` user=\d+\.\d{3} sys=\d+\.\d{3}$`)
		if !re.MatchString(log.String()) {
			t.Errorf("no line matches %s in:\n%s", re, log.String())
		}
	}
	if strings.Count(log.String(), "\n") < 4 {
		t.Errorf("log:\n%s", log.String())
	}
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
