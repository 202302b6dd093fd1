package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/olmops/olmops/test/harness"
)

// startGit serves a new bare repository over smart HTTP with basic auth
// and pushes examples/ into it from a clone.
func (d *demo) startGit(ctx context.Context) error {
	if err := d.redirectStderr(); err != nil {
		return err
	}
	g, err := harness.StartGit(ctx, filepath.Join(d.tmp, "fleet"))
	if err != nil {
		return err
	}
	d.git = g
	d.onCleanup(func() error { g.Close(); return nil })
	d.out.line("git http-backend serves %s (user %s, password %s)", g.URL, harness.GitUsername, harness.GitPassword)
	d.out.command("git", "clone", "--quiet", g.URL, "fleet")
	d.out.command("cp", "-r", "examples/.", "fleet/")
	if err := os.CopyFS(g.Work, os.DirFS(d.Examples)); err != nil {
		return fmt.Errorf("copy examples/: %w", err)
	}
	for _, args := range [][]string{
		{"add", "--all"},
		{"commit", "--quiet", "-m", "desired state: catalogs and subscriptions"},
		{"push", "--quiet", "origin", "main"},
	} {
		if err := d.user(ctx, args...); err != nil {
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

// user runs a git command in the user's clone and shows it as the user
// types it, with what it printed; shown after it ran, so that no watcher
// line splits them.
func (d *demo) user(ctx context.Context, args ...string) error {
	stdout, err := d.git.InWork(ctx, args...)
	d.out.command("git", args...)
	d.out.block(stdout)
	return err
}

// heads shows the branches on the server, the way git ls-remote does.
func (d *demo) heads(ctx context.Context) (map[string]string, error) {
	heads, err := d.git.Heads(ctx)
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, ref := range slices.Sorted(maps.Keys(heads)) {
		lines = append(lines, heads[ref][:12]+"  refs/heads/"+ref)
	}
	d.out.command("git", "ls-remote", "--heads", "origin")
	d.out.block(strings.Join(lines, "\n"))
	return heads, nil
}

// runOlmops runs the olmops binary in the user's clone and shows it.
func (d *demo) runOlmops(ctx context.Context, args ...string) error {
	out, err := d.git.Olmops(ctx, d.Olmops, args...)
	d.out.command("olmops", args...)
	d.out.block(out)
	return err
}
