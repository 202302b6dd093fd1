package github

import (
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

const (
	testOwner = "olmops"
	// testToken is recognisable, so tests can look for it where it must
	// not be.
	testToken = "ghp_TESTTOKEN0123456789abcdefNEVERLEAK"
)

// gitServer holds the bare repositories behind the fake GitHub, started
// once; nil when git is not installed.
var gitServer *gittest.Server

func TestMain(m *testing.M) {
	if _, err := exec.LookPath("git"); err == nil {
		s, err := gittest.Start(gittest.ServerOptions{})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		gitServer = s
	}
	code := m.Run()
	if gitServer != nil {
		gitServer.Close()
	}
	os.Exit(code)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9]+`)

// fixture is a repository named after the test with a first commit on
// main, a fake GitHub over it and a Forge on the fake.
type fixture struct {
	gh    *githubtest.Server
	dir   string
	repo  string
	forge *Forge
	main  string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	if gitServer == nil {
		t.Skip("git is not installed: these tests need the git CLI")
	}
	fx := &fixture{repo: strings.Trim(unsafeName.ReplaceAllString(t.Name(), "-"), "-")}
	gitServer.CreateRepo(t, fx.repo)
	fx.dir = gitServer.RepoDir(fx.repo)
	fx.main = gittest.Commit(t, fx.dir, "main", gittest.Change{Files: map[string][]byte{"README.md": []byte("hello\n")}, Message: "initial"})
	fx.gh = githubtest.NewServer(t, githubtest.Options{Owner: testOwner, Repo: fx.repo, Token: testToken, GitDir: fx.dir})
	fx.forge = fx.newForge(t, Options{Token: testToken, BaseURL: fx.gh.URL + "/api/v3/"})
	return fx
}

// newForge is a Forge on the fixture's repository with opts.
func (fx *fixture) newForge(t *testing.T, opts Options) *Forge {
	t.Helper()
	opts.Owner, opts.Repo = testOwner, fx.repo
	f, err := New(t.Context(), opts)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return f
}

// push commits file on branch, which starts from main when it does not
// exist yet, and returns the commit.
func (fx *fixture) push(t *testing.T, branch, file, content string) string {
	t.Helper()
	if strings.TrimSpace(gittest.Git(t, fx.dir, "branch", "--list", branch)) == "" {
		gittest.Git(t, fx.dir, "branch", branch, "main")
	}
	return gittest.Commit(t, fx.dir, branch, gittest.Change{
		Files: map[string][]byte{file: []byte(content)}, Message: "change " + file,
	})
}

// branchHead is the commit branch points at in the bare repository.
func (fx *fixture) branchHead(t *testing.T, branch string) string {
	t.Helper()
	return strings.TrimSpace(gittest.Git(t, fx.dir, "rev-parse", "--verify", "refs/heads/"+branch))
}
