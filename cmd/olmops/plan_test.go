package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/internal/gittest"
)

// exampleRepo is a fresh `git init` of examples/, as a newcomer makes it.
func exampleRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(examplesDir)); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "init", "--quiet", "--initial-branch=main")
	gittest.Git(t, dir, "add", "--all")
	gittest.Git(t, dir, "commit", "--quiet", "-m", "examples")
	return dir
}

func TestPlanExamples(t *testing.T) {
	dir := exampleRepo(t)
	out, errOut, code := runCLI(t, "plan", "--repo", dir)
	if code != exitOK {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, s := range []string{
		"prod-east: 2 plans, 2 changed",
		// acme-db needs etcd's API: it waits in etcd's proposal.
		"etcd-system/acme-db: install etcd 0.9.2 (prod-east/etcd-system), proposed on branch olmops/prod-east/etcd-system/etcd (Install)\n" +
			"    acme-db waits with etcd: requires etcd's EtcdCluster (etcd.database.coreos.com/v1beta2)",
		"etcd-system/etcd: install etcd 0.9.2 (prod-east/etcd-system), proposed on branch olmops/prod-east/etcd-system/etcd",
		"staging: 1 plans, 1 changed",
	} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the worktree is not clean after plan:\n%s", st)
	}
	if _, err := os.Stat(filepath.Join(dir, "clusters/staging/plans/etcd-system/etcd/installplan.yaml")); err != nil {
		t.Errorf("the Automatic plan is not in the worktree: %v", err)
	}
	// The Manual plan waits on its branch: --check says so and passes.
	out, _, code = runCLI(t, "plan", "--repo", dir, "--check")
	if code != exitOK || !strings.Contains(out, "etcd-system/etcd: install etcd 0.9.2 (prod-east/etcd-system), awaiting approval") ||
		!strings.Contains(out, "awaiting approval in proposal olmops/prod-east/etcd-system/etcd") {
		t.Errorf("--check: exit %d\n%s", code, out)
	}
	out, _, code = runCLI(t, "plan", "--repo", dir, "--check", "--cluster", "staging", "-o", "json")
	if code != exitOK || !strings.Contains(out, `"action": "none"`) {
		t.Errorf("--check --cluster staging: exit %d\n%s", code, out)
	}
}

// A broken subscription stops its cluster, with file and line, and
// nothing is committed for it; the other clusters are planned.
func TestPlanBrokenCluster(t *testing.T) {
	dir := exampleRepo(t)
	bad := filepath.Join(dir, "clusters/staging/subscriptions/etcd.yaml")
	data, _ := os.ReadFile(bad)
	os.WriteFile(bad, []byte(strings.Replace(string(data), "  source:\n", "  sorce:\n", 1)), 0o644)
	gittest.Git(t, dir, "commit", "--quiet", "-am", "typo")
	out, errOut, code := runCLI(t, "plan", "--repo", dir)
	if code != exitFindings {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitFindings, out, errOut)
	}
	if !strings.Contains(errOut, `clusters/staging/subscriptions/etcd.yaml:10: unknown field "sorce"`) || !strings.Contains(out, "staging: not planned, nothing written") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", out, errOut)
	}
	if _, err := os.Stat(filepath.Join(dir, "clusters/staging/plans")); !os.IsNotExist(err) {
		t.Errorf("something was written for the broken cluster: %v", err)
	}
	if !strings.Contains(gittest.Git(t, dir, "ls-tree", "-r", "--name-only", "olmops/prod-east/etcd-system/etcd"), "clusters/prod-east/plans/etcd-system/acme-db/installplan.yaml") {
		t.Error("the healthy cluster was not planned")
	}
}

func TestPlanUsage(t *testing.T) {
	for _, args := range [][]string{
		{"plan", "--repo", "https://example.com/fleet.git"},
		{"plan", "--check", "--push"},
		{"plan", "-o", "xml"},
		{"plan", "--repo", exampleRepo(t), "--cluster", "nope"},
	} {
		if _, errOut, code := runCLI(t, args...); code != exitError {
			t.Errorf("%v: exit %d, want %d\n%s", args, code, exitError, errOut)
		}
	}
}
