package gitsource_test

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

const (
	testUser     = "olmops"
	testPassword = "s3cret"
)

// server is the git server of the package's tests, started once; nil when
// git is not installed.
var server *gittest.Server

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("git"); err == nil {
		s, err := gittest.Start(gittest.ServerOptions{Username: testUser, Password: testPassword})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		server = s
	}
	code := m.Run()
	if server != nil {
		server.Close()
	}
	os.Exit(code)
}

var testAuth = gitsource.Auth{Username: testUser, Password: testPassword}

var author = object.Signature{Name: "olmops", Email: "olmops@example.com", When: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9]+`)

var remoteNames = struct {
	sync.Mutex
	n map[string]int
}{n: map[string]int{}}

// remote is a repository on the test server.
type remote struct {
	url, dir string
}

// newRemote creates a repository named after the test, with files as its
// first commit on main when files is not nil.
func newRemote(t testing.TB, files map[string][]byte) remote {
	t.Helper()
	if server == nil {
		t.Skip("git is not installed: the gitsource tests need the git CLI and git-http-backend")
	}
	name := unsafeName.ReplaceAllString(t.Name(), "-")
	// -count runs a test again against the same server: a fresh name.
	remoteNames.Lock()
	remoteNames.n[name]++
	if k := remoteNames.n[name]; k > 1 {
		name = fmt.Sprintf("%s-run%d", name, k)
	}
	remoteNames.Unlock()
	rm := remote{url: server.CreateRepo(t, name), dir: server.RepoDir(name)}
	if files != nil {
		rm.commit(t, "main", gittest.Change{Files: files, Message: "initial"})
	}
	return rm
}

func (rm remote) commit(t testing.TB, branch string, c gittest.Change) plumbing.Hash {
	t.Helper()
	return plumbing.NewHash(gittest.Commit(t, rm.dir, branch, c))
}

// head is the commit the server's branch points at.
func (rm remote) head(t testing.TB, branch string) plumbing.Hash {
	t.Helper()
	out := gittest.Git(t, rm.dir, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch)
	return plumbing.NewHash(out[:40])
}

// open opens a new cache clone of rm.
func (rm remote) open(t testing.TB) *gitsource.Repo {
	t.Helper()
	repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: rm.url, CacheDir: t.TempDir(), Auth: testAuth})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return repo
}

func resolve(t testing.TB, repo *gitsource.Repo, ref string) plumbing.Hash {
	t.Helper()
	h, err := repo.Resolve(t.Context(), ref)
	if err != nil {
		t.Fatalf("Resolve(%q): %v", ref, err)
	}
	return h
}

func snapshot(t testing.TB, repo *gitsource.Repo, ref string) *gitsource.Snapshot {
	t.Helper()
	snap, err := repo.Snapshot(t.Context(), resolve(t, repo, ref))
	if err != nil {
		t.Fatalf("Snapshot(%s): %v", ref, err)
	}
	return snap
}
