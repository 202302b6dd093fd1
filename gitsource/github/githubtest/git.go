package githubtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
)

// errNoRef reports a ref or commit that git does not know.
var errNoRef = errors.New("no such ref")

// git runs git in the backing repository with no user or system
// configuration and a fixed identity, and returns its trimmed standard
// output.
func (s *Server) git(ctx context.Context, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", s.opts.GitDir}, args...)...)
	cmd.Env = append(os.Environ(),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CONFIG_GLOBAL="+os.DevNull,
		"GIT_AUTHOR_NAME=GitHub", "GIT_AUTHOR_EMAIL=noreply@github.com",
		"GIT_COMMITTER_NAME=GitHub", "GIT_COMMITTER_EMAIL=noreply@github.com",
		"GIT_TERMINAL_PROMPT=0",
	)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	s.gitRuns.add(args[0], cmd)
	out := strings.TrimSpace(stdout.String())
	if err != nil {
		return out, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// commit resolves rev (a hash, or a full ref name) to a commit, or returns
// errNoRef.
func (s *Server) commit(ctx context.Context, rev string) (string, error) {
	if rev == "" || strings.HasPrefix(rev, "-") {
		return "", errNoRef
	}
	if s.catFile != nil {
		switch sha, ok, err := s.catFile.resolve(rev); {
		case err == nil && ok:
			return sha, nil
		case err == nil:
			return "", fmt.Errorf("%w: %s", errNoRef, rev)
		}
		// The batch failed: git answers on its own.
	}
	out, err := s.git(ctx, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return "", fmt.Errorf("%w: %s", errNoRef, rev)
	}
	return out, err
}

// isAncestor says whether commit a is reachable from commit b.
func (s *Server) isAncestor(ctx context.Context, a, b string) (bool, error) {
	if s.catFile != nil {
		if ok, err := s.catFile.isAncestor(a, b); err == nil {
			return ok, nil
		}
		// The batch failed or the history is too long: git answers.
	}
	_, err := s.git(ctx, "merge-base", "--is-ancestor", a, b)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		return false, nil
	}
	return err == nil, err
}

// mergeCommit merges head into base the way GitHub's merge button does
// when a fast-forward is not possible, and returns the new merge commit;
// the refs are not moved.
func (s *Server) mergeCommit(ctx context.Context, p *PR, base, head string) (string, error) {
	out, err := s.git(ctx, "merge-tree", "--write-tree", "--name-only", base, head)
	var exit *exec.ExitError
	if errors.As(err, &exit) && exit.ExitCode() == 1 {
		// out is the tree, the conflicted files, a blank line and git's
		// messages; the messages say what conflicted and how.
		_, msgs, _ := strings.Cut(out, "\n\n")
		return "", fmt.Errorf("githubtest: merge pull request #%d (%s into %s): conflict: %s", p.Number, p.Head, p.Base, strings.TrimSpace(msgs))
	}
	if err != nil {
		return "", fmt.Errorf("githubtest: merge pull request #%d: %w", p.Number, err)
	}
	tree, _, _ := strings.Cut(out, "\n")
	msg := fmt.Sprintf("Merge pull request #%d from %s/%s\n\n%s", p.Number, s.opts.Owner, p.Head, p.Title)
	return s.git(ctx, "commit-tree", tree, "-p", base, "-p", head, "-m", msg)
}

// moveBranch points branch at to if it still points at from.
func (s *Server) moveBranch(ctx context.Context, branch, to, from, why string) error {
	_, err := s.git(ctx, "update-ref", "-m", why, "refs/heads/"+branch, to, from)
	return err
}
