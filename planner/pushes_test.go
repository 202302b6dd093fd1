package planner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// A pass pushes all its proposal branches in one push: each push makes
// the server walk what the remote's refs reach, so one push per proposal
// made a 100-cluster pass take minutes. The server's pre-receive hook
// writes one line per push, naming the refs it updates.
func TestProposalsInOnePush(t *testing.T) {
	name := "onepush"
	gitServer.CreateRepo(t, name)
	dir := gitServer.RepoDir(name)
	files := examples(t)
	// Staging Manual as prod-east is: two clusters' proposals in one pass.
	files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "approval: Automatic", "approval: Manual", 1))
	gittest.Commit(t, dir, "main", gittest.Change{Files: files, Message: "desired state"})
	pushes := filepath.Join(t.TempDir(), "pushes")
	hook := "#!/bin/sh\nrefs=\nwhile read old new ref; do refs=\"$refs $ref\"; done\necho \"push:$refs\" >> " + pushes + "\n"
	if err := os.WriteFile(filepath.Join(dir, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: gitServer.RepoURL(name), CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(Options{Repo: repo, Push: true, Version: "test", Backoff: time.Millisecond}).Run(t.Context()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(pushes)
	if err != nil {
		t.Fatal(err)
	}
	var withProposals []string
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.Contains(line, "refs/heads/olmops/") {
			withProposals = append(withProposals, line)
		}
	}
	if len(withProposals) != 1 || strings.Count(withProposals[0], "refs/heads/olmops/") < 2 {
		t.Errorf("pushes with proposal branches: %q, want one push carrying every proposal (at least 2)", withProposals)
	}
}
