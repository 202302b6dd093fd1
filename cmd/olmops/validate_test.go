package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/review"
)

func TestValidateExamples(t *testing.T) {
	dirs := []string{examplesDir + "/catalogs/operatorhub", examplesDir + "/catalogs/internal"}
	for _, format := range []string{"text", "github"} {
		out, stderr, code := runCLI(t, append([]string{"validate", "-o", format}, dirs...)...)
		if code != 0 || out != "" {
			t.Errorf("validate -o %s examples: exit %d, stdout:\n%s\nstderr:\n%s", format, code, out, stderr)
		}
	}
	out, _, code := runCLI(t, append([]string{"validate", "-o", "json"}, dirs...)...)
	if code != 0 || strings.TrimSpace(out) != "{\n  \"valid\": true,\n  \"errors\": []\n}" {
		t.Errorf("validate -o json examples: exit %d, output:\n%s", code, out)
	}
}

// writeCatalog writes files (name → content) into a new temporary directory.
func writeCatalog(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const validPackage = `---
schema: olm.package
name: foo
defaultChannel: stable
---
schema: olm.channel
package: foo
name: stable
entries:
  - name: foo.v0.1.0
---
schema: olm.bundle
package: foo
name: foo.v0.1.0
image: example.com/foo-bundle:v0.1.0
properties:
  - type: olm.package
    value: {packageName: foo, version: 0.1.0}
`

func TestValidateInvalid(t *testing.T) {
	bad := writeCatalog(t, map[string]string{
		"foo/catalog.yaml": validPackage,
		// A second package "foo": opm says duplicate package.
		"foo2/catalog.yaml": "---\nschema: olm.package\nname: foo\ndefaultChannel: stable\n",
	})
	broken := writeCatalog(t, map[string]string{
		"catalog.yaml": "---\nschema: olm.package\nname: bar\n  defaultChannel: [\n",
	})
	good := writeCatalog(t, map[string]string{"foo/catalog.yaml": validPackage})

	t.Run("text", func(t *testing.T) {
		out, stderr, code := runCLI(t, "validate", good, bad, broken)
		if code != exitFindings {
			t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitFindings, stderr)
		}
		dup := filepath.Join(bad, "foo2", "catalog.yaml") + ":2: "
		syntax := filepath.Join(broken, "catalog.yaml") + ":"
		var sawDup, sawSyntax bool
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			sawDup = sawDup || strings.HasPrefix(line, dup) && strings.Contains(line, `duplicate package "foo"`)
			sawSyntax = sawSyntax || strings.HasPrefix(line, syntax)
			if strings.Contains(line, good) {
				t.Errorf("valid catalog reported: %s", line)
			}
		}
		if !sawDup || !sawSyntax {
			t.Errorf("want a duplicate-package line starting %q and a YAML error starting %q, got:\n%s", dup, syntax, out)
		}
		if !strings.Contains(stderr, "in 2 of 3 catalog(s)") {
			t.Errorf("stderr summary = %q", stderr)
		}
	})

	t.Run("json", func(t *testing.T) {
		out, _, code := runCLI(t, "validate", "-o", "json", good, bad)
		if code != exitFindings {
			t.Fatalf("exit %d", code)
		}
		var res struct {
			Valid  bool      `json:"valid"`
			Errors []finding `json:"errors"`
		}
		if err := json.Unmarshal([]byte(out), &res); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if res.Valid || len(res.Errors) == 0 {
			t.Fatalf("got %+v, want invalid with errors", res)
		}
		var found bool
		for _, e := range res.Errors {
			if e.File == filepath.Join(bad, "foo2", "catalog.yaml") && e.Line == 2 && e.Package == "foo" {
				found = true
			}
		}
		if !found {
			t.Errorf("no error for the duplicate package with file, line and package:\n%s", out)
		}
	})

	t.Run("github", func(t *testing.T) {
		out, _, code := runCLI(t, "validate", "-o", "github", bad)
		if code != exitFindings {
			t.Fatalf("exit %d", code)
		}
		file := escapeGitHubProperty(filepath.Join(bad, "foo2", "catalog.yaml"))
		if !strings.Contains(out, "::error file="+file+",line=2,title=foo::") {
			t.Errorf("no annotation for %s line 2:\n%s", file, out)
		}
	})

	t.Run("missing dir is an I/O error before any output", func(t *testing.T) {
		out, stderr, code := runCLI(t, "validate", bad, filepath.Join(good, "nope"))
		if code != exitError || out != "" || !strings.Contains(stderr, "nope") {
			t.Errorf("exit %d, stdout %q, stderr %q", code, out, stderr)
		}
	})
}

func TestGitHubAnnotation(t *testing.T) {
	tests := []struct {
		f    finding
		want string
	}{
		{finding{File: "a/b.yaml", Line: 3, Package: "etcd", Message: "bad"}, "::error file=a/b.yaml,line=3,title=etcd::bad"},
		{finding{File: "c:d,e.yaml", Message: "100% wrong\r\nsecond line"}, "::error file=c%3Ad%2Ce.yaml::100%25 wrong%0D%0Asecond line"},
		{finding{File: "x", Line: 1, Package: "p,q:r", Message: "a: b, c"}, "::error file=x,line=1,title=p%2Cq%3Ar::a: b, c"},
	}
	for _, tt := range tests {
		if got := githubAnnotation(tt.f, review.Error); got != tt.want {
			t.Errorf("githubAnnotation(%+v)\n got %s\nwant %s", tt.f, got, tt.want)
		}
	}
}
