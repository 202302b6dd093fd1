package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/kubetest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// kube is the control plane of apply and serve, started by the first
// test that needs one: plans hold OperatorConditions, and olmops records
// its passes in Repository objects.
var kube = kubetest.NewShared(
	kubetest.WithOperatorConditionCRD(),
	kubetest.WithCRDDirs("../../config/crd/bases"),
	kubetest.WithScheme(v1alpha1.AddToScheme),
)

func TestMain(m *testing.M) { os.Exit(kube.Run(m)) }

const (
	smallCatalog = "testdata/small"
	examplesDir  = "../../examples"
)

// runCLI runs olmops in-process and returns what it printed and its exit code.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(t.Context(), args, streams{Out: &out, Err: &errb})
	return out.String(), errb.String(), code
}

// golden compares got with testdata/golden/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

func TestExitCodes(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"help", []string{"--help"}, exitOK},
		{"version", []string{"version"}, exitOK},
		{"version with args", []string{"version", "x"}, exitError},
		{"unknown command", []string{"frobnicate"}, exitError},
		{"unknown flag", []string{"validate", "--frob", smallCatalog}, exitError},
		{"validate without dir", []string{"validate"}, exitError},
		{"validate missing dir", []string{"validate", "testdata/does-not-exist"}, exitError},
		{"validate a file", []string{"validate", "main.go"}, exitError},
		{"validate bad output", []string{"validate", "-o", "xml", smallCatalog}, exitError},
		{"list bad kind", []string{"catalog", "list", "operators", smallCatalog}, exitError},
		{"list unknown package", []string{"catalog", "list", "bundles", smallCatalog, "nope"}, exitError},
		{"list too many args", []string{"catalog", "list", "bundles", smallCatalog, "foo", "bar"}, exitError},
		{"graph unknown package", []string{"graph", smallCatalog, "nope"}, exitError},
		{"graph unknown channel", []string{"graph", smallCatalog, "foo", "--channel", "nope"}, exitError},
		{"graph bad output", []string{"graph", smallCatalog, "foo", "-o", "png"}, exitError},
		{"graph ok", []string{"graph", smallCatalog, "foo"}, exitOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, code := runCLI(t, tt.args...)
			if code != tt.want {
				t.Errorf("olmops %v: exit %d, want %d; stderr:\n%s", tt.args, code, tt.want, stderr)
			}
			if code == exitError && stderr == "" {
				t.Errorf("olmops %v: exit %d with nothing on stderr", tt.args, code)
			}
		})
	}
}

func TestVersion(t *testing.T) {
	out, _, code := runCLI(t, "version")
	if code != 0 || !bytes.HasPrefix([]byte(out), []byte("olmops "+version+" (go")) {
		t.Errorf("version: exit %d, output %q", code, out)
	}
}

func TestVersionFormats(t *testing.T) {
	text, _, code := runCLI(t, "version")
	if code != 0 {
		t.Fatalf("version: exit %d", code)
	}
	flag, _, code := runCLI(t, "--version")
	if code != 0 || flag != text {
		t.Errorf("--version: exit %d, %q; want the output of olmops version, %q", code, flag, text)
	}
	out, _, code := runCLI(t, "version", "-o", "json")
	var got buildInfo
	if err := json.Unmarshal([]byte(out), &got); code != 0 || err != nil {
		t.Fatalf("version -o json: exit %d, %v: %q", code, err, out)
	}
	if got.Version != version || got.GoVersion != runtime.Version() || got.Platform != runtime.GOOS+"/"+runtime.GOARCH {
		t.Errorf("version -o json = %+v", got)
	}
	out, _, code = runCLI(t, "version", "-o", "yaml")
	if code != 0 || !strings.Contains(out, "version: "+version+"\n") {
		t.Errorf("version -o yaml: exit %d, %q", code, out)
	}
	if _, _, code := runCLI(t, "version", "-o", "xml"); code != exitError {
		t.Errorf("version -o xml: exit %d, want %d", code, exitError)
	}
}
