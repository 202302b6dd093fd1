package corpus

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// OptOut is the environment variable that turns a missing corpus from a
// failure into a skip.
const OptOut = "OLMOPS_NO_SHARED"

// Path returns the absolute path of rel (slash-separated, e.g.
// "catalogs/ocp-v4.20") inside the shared corpus. When it is missing the
// test fails, or skips when OLMOPS_NO_SHARED=1.
func Path(tb testing.TB, rel string) string {
	tb.Helper()
	p, err := find(rel)
	if err == nil {
		return p
	}
	if os.Getenv(OptOut) == "1" {
		tb.Skipf("%v (%s=1)", err, OptOut)
		return ""
	}
	tb.Fatalf("%v (set %s=1 to skip the tests that need it)", err, OptOut)
	return ""
}

// find resolves rel against ../shared of the repository root, the first
// folder holding go.mod at or above the working directory (go test runs a
// package's tests in its own folder).
func find(rel string) (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("corpus: %w", err)
	}
	root := wd
	for {
		if _, err := os.Stat(filepath.Join(root, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(root)
		if parent == root {
			return "", fmt.Errorf("corpus: no go.mod at or above %s", wd)
		}
		root = parent
	}
	p := filepath.Join(filepath.Dir(root), "shared", filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("corpus: %s not found: the shared corpus is expected at %s, beside the repository",
				p, filepath.Join(filepath.Dir(root), "shared"))
		}
		return "", fmt.Errorf("corpus: %w", err)
	}
	return p, nil
}
