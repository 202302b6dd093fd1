package harness

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/olmops/olmops/internal/gittest"
)

// The git server's credentials, and the repository's name on it.
const (
	GitUsername = "olmops"
	GitPassword = "demo-password"
	repoName    = "fleet"
)

// Git is the desired-state repository: bare on a git server (git
// http-backend on 127.0.0.1, basic auth), and a user's clone of it.
type Git struct {
	URL  string
	Bare string // the server's bare repository
	Work string // the user's clone
	// Env is added to olmops' environment, such as a forge token.
	Env []string
	srv *gittest.Server
	env []string
}

// StartGit serves a new, empty bare repository and clones it into work,
// which must not exist yet. Close stops the server.
func StartGit(ctx context.Context, work string) (*Git, error) {
	srv, err := gittest.Start(gittest.ServerOptions{Username: GitUsername, Password: GitPassword})
	if err != nil {
		return nil, err
	}
	g := &Git{URL: srv.RepoURL(repoName), Bare: srv.RepoDir(repoName), Work: work, srv: srv, env: gitEnv()}
	if _, err := g.Run(ctx, srv.Root, "init", "--quiet", "--bare", "--initial-branch=main", repoName+".git"); err != nil {
		srv.Close()
		return nil, err
	}
	if _, err := g.Run(ctx, srv.Root, "clone", "--quiet", g.URL, work); err != nil {
		srv.Close()
		return nil, err
	}
	return g, nil
}

// Close stops the server.
func (g *Git) Close() { g.srv.Close() }

// gitEnv keeps the user's git configuration out and gives git the
// credentials: an Authorization header, so that they are neither in the
// remote URL nor in a credential store.
func gitEnv() []string {
	auth := base64.StdEncoding.EncodeToString([]byte(GitUsername + ":" + GitPassword))
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Demo User", "GIT_AUTHOR_EMAIL=demo@example.com",
		"GIT_COMMITTER_NAME=Demo User", "GIT_COMMITTER_EMAIL=demo@example.com",
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=Authorization: Basic "+auth,
		"GIT_CONFIG_KEY_1=init.defaultBranch", "GIT_CONFIG_VALUE_1=main",
	)
}

// Run runs git in dir and returns its standard output.
func (g *Git) Run(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := Command(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, g.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// InWork runs git in the user's clone.
func (g *Git) InWork(ctx context.Context, args ...string) (string, error) {
	return g.Run(ctx, g.Work, args...)
}

// InBare runs git against the server's bare repository.
func (g *Git) InBare(ctx context.Context, args ...string) (string, error) {
	return g.Run(ctx, g.Bare, append([]string{"--git-dir", g.Bare}, args...)...)
}

// Heads are the branches on the server and their commits, as git
// ls-remote --heads lists them.
func (g *Git) Heads(ctx context.Context) (map[string]string, error) {
	out, err := g.InWork(ctx, "ls-remote", "--heads", "origin")
	if err != nil {
		return nil, err
	}
	heads := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if sha, ref, ok := strings.Cut(line, "\t"); ok {
			heads[strings.TrimPrefix(ref, "refs/heads/")] = sha
		}
	}
	return heads, nil
}

// Note is a commit's note on refs/notes/olmops: its commit statuses, as
// the git-only forge writes them.
type Note struct {
	Statuses []Status `json:"statuses"`
}

// Status is one commit status.
type Status struct {
	Context     string `json:"context"`
	State       string `json:"state"`
	Description string `json:"description"`
}

// ReadNote reads commit's statuses from the server's repository.
func (g *Git) ReadNote(ctx context.Context, commit string) (Note, error) {
	var n Note
	out, err := g.InBare(ctx, "notes", "--ref=olmops", "show", commit)
	if err != nil {
		return n, err
	}
	if err := json.Unmarshal([]byte(out), &n); err != nil {
		return n, fmt.Errorf("the note of %s: %w", commit, err)
	}
	return n, nil
}

// WaitStatus waits until commit has the status named name in state.
func (g *Git) WaitStatus(ctx context.Context, commit, name, state string, timeout time.Duration) error {
	what := fmt.Sprintf("status %s %s on %.12s", name, state, commit)
	return Poll(ctx, what, timeout, func(ctx context.Context) (bool, string, error) {
		n, err := g.ReadNote(ctx, commit)
		if err != nil {
			return false, err.Error(), nil // no note yet
		}
		for _, s := range n.Statuses {
			if s.Context == name {
				return s.State == state, s.State + " " + s.Description, nil
			}
		}
		return false, "no such status yet", nil
	})
}

// Olmops runs the olmops binary in the user's clone, with the git
// credentials in the environment as olmops reads them, and returns what
// it printed.
func (g *Git) Olmops(ctx context.Context, olmops string, args ...string) (string, error) {
	cmd := Command(ctx, olmops, args...)
	cmd.Dir = g.Work
	cmd.Env = append(os.Environ(), "OLMOPS_GIT_USERNAME="+GitUsername, "OLMOPS_GIT_PASSWORD="+GitPassword)
	cmd.Env = append(cmd.Env, g.Env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("olmops %s: %w", args[0], err)
	}
	return string(out), nil
}
