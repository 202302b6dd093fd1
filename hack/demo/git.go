package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/olmops/olmops/internal/gittest"
)

const (
	gitUsername = "olmops"
	gitPassword = "demo-password"
	repoName    = "fleet"
)

// fleetRepo is the desired-state repository: bare on the git server, and
// a user's clone of it.
type fleetRepo struct {
	url  string
	bare string // the server's bare repository
	work string // the user's clone
	env  []string
}

// startGit serves a new bare repository over smart HTTP with basic auth
// and pushes examples/ into it from a clone.
func (d *demo) startGit(ctx context.Context) error {
	if err := d.redirectStderr(); err != nil {
		return err
	}
	srv, err := gittest.Start(gittest.ServerOptions{Username: gitUsername, Password: gitPassword})
	if err != nil {
		return err
	}
	d.onCleanup(func() error { srv.Close(); return nil })
	d.git = &fleetRepo{url: srv.RepoURL(repoName), bare: srv.RepoDir(repoName), work: filepath.Join(d.tmp, "fleet"), env: gitEnv()}
	if _, err := d.git.run(ctx, srv.Root, "init", "--quiet", "--bare", "--initial-branch=main", repoName+".git"); err != nil {
		return err
	}
	d.out.line("git http-backend serves %s (user %s, password %s)", d.git.url, gitUsername, gitPassword)
	if err := d.git.user(ctx, d.out, d.tmp, "clone", "--quiet", d.git.url, "fleet"); err != nil {
		return err
	}
	d.out.command("cp", "-r", "examples/.", "fleet/")
	if err := os.CopyFS(d.git.work, os.DirFS(d.examples)); err != nil {
		return fmt.Errorf("copy examples/: %w", err)
	}
	for _, args := range [][]string{
		{"add", "--all"},
		{"commit", "--quiet", "-m", "desired state: catalogs and subscriptions"},
		{"push", "--quiet", "origin", "main"},
	} {
		if err := d.git.user(ctx, d.out, d.git.work, args...); err != nil {
			return err
		}
	}
	return nil
}

// redirectStderr sends what git http-backend says to a log file until the
// server is closed. The server's CGI handler writes to os.Stderr, read at
// each request; what it says is noise here, such as a push that lost a
// race for refs/notes/olmops, which olmops retries.
func (d *demo) redirectStderr() error {
	path := filepath.Join(d.tmp, "git-http-backend.log")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	orig := os.Stderr
	os.Stderr = f
	d.onCleanup(func() error { os.Stderr = orig; return f.Close() })
	return nil
}

// gitEnv keeps the user's git configuration out of the demo and gives git
// the credentials: an Authorization header, so that they are neither in
// the remote URL nor in a credential store.
func gitEnv() []string {
	auth := base64.StdEncoding.EncodeToString([]byte(gitUsername + ":" + gitPassword))
	return append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=Demo User", "GIT_AUTHOR_EMAIL=demo@example.com",
		"GIT_COMMITTER_NAME=Demo User", "GIT_COMMITTER_EMAIL=demo@example.com",
		"GIT_CONFIG_COUNT=2",
		"GIT_CONFIG_KEY_0=http.extraHeader", "GIT_CONFIG_VALUE_0=Authorization: Basic "+auth,
		"GIT_CONFIG_KEY_1=init.defaultBranch", "GIT_CONFIG_VALUE_1=main",
	)
}

// run runs git in dir and returns its standard output.
func (g *fleetRepo) run(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := command(ctx, "git", args...)
	cmd.Dir, cmd.Env = dir, g.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// user runs a git command and shows it as the user types it, with what
// it printed; shown after it ran, so that no watcher line splits them.
func (g *fleetRepo) user(ctx context.Context, out *printer, dir string, args ...string) error {
	stdout, err := g.run(ctx, dir, args...)
	out.command("git", args...)
	out.block(stdout)
	return err
}

// bareGit runs git against the server's bare repository.
func (g *fleetRepo) bareGit(ctx context.Context, args ...string) (string, error) {
	return g.run(ctx, g.bare, append([]string{"--git-dir", g.bare}, args...)...)
}

// heads shows the branches on the server, the way git ls-remote does.
func (d *demo) heads(ctx context.Context) (map[string]string, error) {
	out, err := d.git.run(ctx, d.git.work, "ls-remote", "--heads", "origin")
	if err != nil {
		return nil, err
	}
	heads := map[string]string{}
	var lines []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		sha, ref, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		heads[strings.TrimPrefix(ref, "refs/heads/")] = sha
		lines = append(lines, sha[:12]+"  "+ref)
	}
	d.out.command("git", "ls-remote", "--heads", "origin")
	d.out.block(strings.Join(lines, "\n"))
	return heads, nil
}

// runOlmops runs the olmops binary in the user's clone, with the git
// credentials in the environment as plan reads them, and shows it.
func (d *demo) runOlmops(ctx context.Context, args ...string) error {
	cmd := command(ctx, d.olmops, args...)
	cmd.Dir = d.git.work
	cmd.Env = append(os.Environ(), "OLMOPS_GIT_USERNAME="+gitUsername, "OLMOPS_GIT_PASSWORD="+gitPassword)
	out, err := cmd.CombinedOutput()
	d.out.command("olmops", args...)
	d.out.block(string(out))
	if err != nil {
		return fmt.Errorf("olmops %s: %w", args[0], err)
	}
	return nil
}
