package gittest

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Change is one commit written by Commit.
type Change struct {
	// Files to write, by slash path; a nil value deletes the file.
	Files map[string][]byte
	// Symlinks to create, by slash path, with their targets.
	Symlinks map[string]string
	// Submodules (gitlinks) to record, by slash path, with their commits.
	Submodules map[string]string
	// Message of the commit; "test commit" when empty.
	Message string
}

// Commit writes one commit on branch of the bare repository dir (created
// from the branch's head, or as a root commit when the branch does not
// exist) with the git CLI, and returns the new commit's hash.
func Commit(t testing.TB, dir, branch string, c Change) string {
	t.Helper()
	work := t.TempDir()
	Git(t, work, "init", "--quiet", "--initial-branch="+branch)
	if strings.TrimSpace(Git(t, work, "ls-remote", dir, "refs/heads/"+branch)) != "" {
		Git(t, work, "fetch", "--quiet", dir, "refs/heads/"+branch)
		Git(t, work, "checkout", "--quiet", "-B", branch, "FETCH_HEAD")
	}
	commitIn(t, work, c)
	Git(t, work, "push", "--quiet", dir, "HEAD:refs/heads/"+branch)
	return strings.TrimSpace(Git(t, work, "rev-parse", "HEAD"))
}

// Worktree makes a repository with a worktree, main checked out, holding
// c as its one commit, and returns its folder.
func Worktree(t testing.TB, c Change) string {
	t.Helper()
	dir := t.TempDir()
	Git(t, dir, "init", "--quiet", "--initial-branch=main")
	commitIn(t, dir, c)
	return dir
}

// commitIn writes c into the worktree work and commits it there.
func commitIn(t testing.TB, work string, c Change) {
	t.Helper()
	for name, data := range c.Files {
		p := filepath.Join(work, filepath.FromSlash(name))
		if data == nil {
			if err := os.RemoveAll(p); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range c.Symlinks {
		p := filepath.Join(work, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	Git(t, work, "add", "--all")
	for name, hash := range c.Submodules {
		Git(t, work, "update-index", "--add", "--cacheinfo", "160000,"+hash+","+name)
	}
	msg := c.Message
	if msg == "" {
		msg = "test commit"
	}
	Git(t, work, "commit", "--quiet", "--allow-empty", "-m", msg)
}

// DirFiles reads every regular file under dir into a map keyed by prefix
// joined with the file's slash path relative to dir, ready for
// Change.Files.
func DirFiles(t testing.TB, dir, prefix string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files[prefix+"/"+filepath.ToSlash(rel)] = data
		return nil
	})
	if err != nil {
		t.Fatalf("gittest: read %s: %v", dir, err)
	}
	return files
}

// Git runs git in dir with a fixed identity and no user or system
// configuration, and returns its standard output; it fails the test when
// git fails.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	RequireGit(t)
	out, err := TryGit(dir, args...)
	if err != nil {
		t.Fatalf("gittest: %v", err)
	}
	return out
}

// TryGit runs git in dir as Git does, returning its failure instead of
// failing the test: for commands whose failure is an answer, such as
// reading a note a commit may not have yet.
func TryGit(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=gittest", "GIT_AUTHOR_EMAIL=gittest@example.com",
		"GIT_COMMITTER_NAME=gittest", "GIT_COMMITTER_EMAIL=gittest@example.com",
		"GIT_TERMINAL_PROMPT=0",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return stdout.String(), nil
}
