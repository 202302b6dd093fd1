package corpus

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder stands in for a test: it keeps what Path reports instead of
// stopping the test that runs it.
type recorder struct {
	testing.TB
	skipped, failed string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Skipf(format string, a ...any)  { r.skipped = fmt.Sprintf(format, a...) }
func (r *recorder) Fatalf(format string, a ...any) { r.failed = fmt.Sprintf(format, a...) }

func TestPath(t *testing.T) {
	cases := []struct {
		name                 string
		shared, optOut       bool
		wantPath, wantFailed bool
		wantSkip             bool
	}{
		{name: "found", shared: true, wantPath: true},
		{name: "missing fails", wantFailed: true},
		{name: "missing with opt-out skips", optOut: true, wantSkip: true},
		{name: "opt-out does not hide a present corpus", shared: true, optOut: true, wantPath: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			top := t.TempDir()
			repo := filepath.Join(top, "repo")
			pkg := filepath.Join(repo, "catalog", "fbc")
			must(t, os.MkdirAll(pkg, 0o755))
			must(t, os.WriteFile(filepath.Join(repo, "go.mod"), []byte("module x\n"), 0o644))
			want := filepath.Join(top, "shared", "catalogs", "c1")
			if c.shared {
				must(t, os.MkdirAll(want, 0o755))
			}
			t.Chdir(pkg)
			if c.optOut {
				t.Setenv(OptOut, "1")
			} else {
				t.Setenv(OptOut, "")
			}
			r := &recorder{TB: t}
			got := Path(r, "catalogs/c1")
			if c.wantPath && got != want {
				t.Errorf("Path = %q, want %q", got, want)
			}
			if (r.failed != "") != c.wantFailed {
				t.Errorf("failed = %q, want a failure: %v", r.failed, c.wantFailed)
			}
			if (r.skipped != "") != c.wantSkip {
				t.Errorf("skipped = %q, want a skip: %v", r.skipped, c.wantSkip)
			}
			// The one line must say where the corpus is expected.
			if msg := r.failed + r.skipped; msg != "" {
				if !strings.Contains(msg, filepath.Join(top, "shared")) || strings.Contains(msg, "\n") {
					t.Errorf("message %q: want one line naming %s", msg, filepath.Join(top, "shared"))
				}
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
