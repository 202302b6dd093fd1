package fbc

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// FuzzIndexIgnore loads a catalog whose .indexignore (top-level and in a
// folder) is arbitrary text: nothing panics, and an ignore file that names
// a catalog file by its exact path keeps that file out.
func FuzzIndexIgnore(f *testing.F) {
	f.Add("# comment\n*.md\nskip/\n", "*.yaml\n!keep.yaml\n")
	f.Add("!\n\\#x\n**/b.yaml\n[a-", "/x/*\n")
	f.Fuzz(func(t *testing.T, top, nested string) {
		fsys := fstest.MapFS{
			".indexignore":   {Data: []byte(top + "\nignored.yaml\n")},
			"ignored.yaml":   {Data: []byte(pkg("ignored"))},
			"a.yaml":         {Data: []byte(pkg("a"))},
			"x/.indexignore": {Data: []byte(nested)},
			"x/b.yaml":       {Data: []byte(pkg("b"))},
		}
		c, err := Load(t.Context(), fsys, Options{})
		if err != nil {
			return
		}
		// A later "!pattern" in top may re-include it, as gitignore does.
		if !strings.Contains(top, "!") && slices.Contains(packageNames(c), "ignored") {
			t.Fatalf("ignored.yaml was loaded with .indexignore %q", top)
		}
	})
}
