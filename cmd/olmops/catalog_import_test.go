package main

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/catalogimport"
	"github.com/olmops/olmops/internal/gittest"
)

// The import itself is tested in package catalogimport; these tests check
// the wiring: flags, output and exit codes.

func importArgs(ref, repo, cache string, extra ...string) []string {
	return append([]string{"catalog", "import", ref, "--into", "catalogs/operatorhub", "--repo", repo, "--cache-dir", cache}, extra...)
}

func TestCatalogImportCLI(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/operatorhub:latest")
	reg.Push(t, ref, ocitest.CatalogImage(t, os.DirFS(examplesDir+"/catalogs/operatorhub")))
	repo, cache := t.TempDir(), t.TempDir()

	// Counted, not listed, and nothing on a standard error that is no
	// terminal.
	out, stderr, code := runCLI(t, importArgs(ref, repo, cache)...)
	if code != exitOK || !strings.HasPrefix(out, "catalog operatorhub: etcd 0.10.0, memcached-operator 0.0.1 available\n  bundles: ") ||
		!regexp.MustCompile(`\n  bundles: [1-9]\d* new, 0 removed, 0 rebuilt; \d+ channel head\(s\) moved; in 2 package\(s\)`).MatchString(out) ||
		strings.Contains(out, "\n  + ") || stderr != "" ||
		!strings.Contains(out, "\nwrote catalogs/operatorhub (2 package(s)) from "+ref+"@sha256:") {
		t.Errorf("first import: exit %d\n%s%s", code, out, stderr)
	}
	out, stderr, code = runCLI(t, importArgs(ref, t.TempDir(), cache, "-v")...)
	if code != exitOK || !strings.HasPrefix(out, "catalog operatorhub: etcd 0.10.0, memcached-operator 0.0.1 available\n  + etcd ") ||
		strings.Contains(out, "  bundles: ") {
		t.Errorf("-v import: exit %d\n%s%s", code, out, stderr)
	}
	out, _, code = runCLI(t, importArgs(ref, repo, cache, "-o", "json")...)
	var sum catalogimport.Summary
	if err := json.Unmarshal([]byte(out), &sum); code != exitOK || err != nil || sum.Changed || sum.Catalog != "operatorhub" {
		t.Errorf("-o json re-import: exit %d, %v\n%s", code, err, out)
	}
}

func TestCatalogImportCLIExitCodes(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	good := reg.Ref("olmops/operatorhub:v1")
	reg.Push(t, good, ocitest.CatalogImage(t, os.DirFS(examplesDir+"/catalogs/operatorhub")))
	invalid := reg.Ref("olmops/invalid:v1")
	reg.Push(t, invalid, ocitest.CatalogImage(t, fstest.MapFS{"x/catalog.yaml": {Data: []byte("schema: olm.package\nname: x\ndefaultChannel: nope\n")}}))
	tests := []struct {
		name   string
		args   func(repo, cache string) []string
		code   int
		stderr string
	}{
		{"invalid catalog", func(r, c string) []string { return importArgs(invalid, r, c) }, exitFindings, "configs/x/catalog.yaml:"},
		{"unknown package", func(r, c string) []string { return importArgs(good, r, c, "--package", "nope") }, exitError, `package "nope" is not in catalog image`},
		{"into outside the repo", func(r, c string) []string {
			return []string{"catalog", "import", good, "--into", "../elsewhere", "--repo", r, "--cache-dir", c}
		}, exitError, "--into"},
		{"no into", func(r, c string) []string { return []string{"catalog", "import", good, "--repo", r} }, exitError, "--into"},
		{"bad output", func(r, c string) []string { return importArgs(good, r, c, "-o", "xml") }, exitError, "--output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tt.args(t.TempDir(), t.TempDir())...)
			if code != tt.code || !strings.Contains(stderr, tt.stderr) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, stderr, tt.code, tt.stderr)
			}
		})
	}
}

func TestCatalogImportCLIPush(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/operatorhub:latest")
	// The example's etcd alone: the proposal removes memcached-operator.
	reg.Push(t, ref, ocitest.CatalogImage(t, os.DirFS(examplesDir+"/catalogs/operatorhub")))
	repo := exampleRepo(t)
	out, errOut, code := runCLI(t, importArgs(ref, repo, t.TempDir(), "--push", "--package", "etcd")...)
	if code != exitOK || !strings.Contains(out, "proposed on olmops/import/operatorhub:") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
	if st := gittest.Git(t, repo, "status", "--porcelain"); st != "" {
		t.Errorf("--push wrote into the worktree:\n%s", st)
	}
}

// --repo URL with --push clones the repository and pushes the proposal.
func TestCatalogImportCLIRepoURL(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/operatorhub:latest")
	reg.Push(t, ref, ocitest.CatalogImage(t, os.DirFS(examplesDir+"/catalogs/operatorhub")))
	srv := gittest.NewServer(t, gittest.ServerOptions{})
	url := srv.CreateRepo(t, "desired")
	gittest.Commit(t, srv.RepoDir("desired"), "main", gittest.Change{Files: gittest.DirFiles(t, examplesDir, "")})

	_, errOut, code := runCLI(t, importArgs(ref, url, t.TempDir())...)
	if code != exitError || !strings.Contains(errOut, "add --push") {
		t.Errorf("--repo URL without --push: exit %d\n%s", code, errOut)
	}
	out, errOut, code := runCLI(t, importArgs(ref, url, t.TempDir(), "--push", "--package", "etcd", "--git-cache-dir", t.TempDir())...)
	if code != exitOK || !strings.Contains(out, "proposed on olmops/import/operatorhub:") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	if log := gittest.Git(t, srv.RepoDir("desired"), "log", "--format=%s", "main..olmops/import/operatorhub"); !strings.Contains(log, "catalog operatorhub: 1 bundle(s) removed") {
		t.Errorf("the remote's proposal branch holds:\n%s", log)
	}
}
