package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCatalogBytes(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a/catalog.yaml", "b/catalog.yaml", "c/catalog.yaml", "d/catalog.yaml"} {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", 1000)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A symlink counts nothing: the walk does not follow it.
	if err := os.Symlink(filepath.Join(dir, "a"), filepath.Join(dir, "e")); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		limit, want int64
	}{
		{1 << 20, 4000}, // every file, and no more
		{2500, 3000},    // stops at the file that reaches the limit
		{1, 1000},
	} {
		if got := catalogBytes(dir, tc.limit); got != tc.want {
			t.Errorf("catalogBytes(limit %d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
	if got := catalogBytes(filepath.Join(dir, "missing"), 1); got != 0 {
		t.Errorf("catalogBytes(missing dir) = %d, want 0", got)
	}
}
