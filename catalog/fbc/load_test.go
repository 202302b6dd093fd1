package fbc

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func pkg(name string) string { return "schema: olm.package\nname: " + name + "\n" }

func packageNames(c *Config) []string {
	var out []string
	for _, p := range c.Packages {
		out = append(out, p.Name)
	}
	return out
}

func TestLoadIndexIgnore(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  []string
	}{
		{
			name: "top-level patterns",
			files: map[string]string{
				".indexignore": "# comment\n*.md\nskip/\n",
				"a.yaml":       pkg("a"),
				"README.md":    "not a catalog",
				"skip/b.yaml":  pkg("b"),
				"c/c.json":     `{"schema":"olm.package","name":"c"}`,
			},
			want: []string{"a", "c"},
		},
		{
			name: "nested ignore applies below its folder only",
			files: map[string]string{
				"x/.indexignore": "*.yaml\n!keep.yaml\n",
				"x/drop.yaml":    pkg("drop"),
				"x/keep.yaml":    pkg("keep"),
				"x/y/deep.yaml":  pkg("deep"),
				"z/drop.yaml":    pkg("z"),
			},
			want: []string{"keep", "z"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFiles(t, dir, tc.files)
			c, err := LoadDir(t.Context(), dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := packageNames(c); !slices.Equal(got, tc.want) {
				t.Errorf("packages %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLoadSymlinks(t *testing.T) {
	outside := t.TempDir()
	writeFiles(t, outside, map[string]string{"secret.yaml": pkg("secret")})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"real/a.yaml": pkg("a")})
	if err := os.Symlink(filepath.Join(outside, "secret.yaml"), filepath.Join(dir, "escape.yaml")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink(filepath.Join("real", "a.yaml"), filepath.Join(dir, "inside.yaml")); err != nil {
		t.Fatal(err)
	}
	c, err := LoadDir(t.Context(), dir)
	if err == nil || !strings.Contains(err.Error(), "escape.yaml") || !strings.Contains(err.Error(), "symlink leaves the catalog root") {
		t.Errorf("error %v, want the escaping symlink refused", err)
	}
	if got := packageNames(c); !slices.Equal(got, []string{"a", "a"}) {
		t.Errorf("packages %v, want a (through the inside symlink) and a", got)
	}
}

func TestLoadMaxFileSize(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"big.yaml": pkg(strings.Repeat("x", 100)), "small.yaml": pkg("s")})
	c, err := Load(t.Context(), os.DirFS(dir), Options{Prefix: dir, MaxFileSize: 64})
	if err == nil || !strings.Contains(err.Error(), "big.yaml") || !strings.Contains(err.Error(), "more than the 64 allowed") {
		t.Errorf("error %v, want big.yaml refused", err)
	}
	if got := packageNames(c); !slices.Equal(got, []string{"s"}) {
		t.Errorf("packages %v", got)
	}
}

func TestLoadDeterministic(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{}
	var want []string
	for i := range 40 {
		name := string(rune('a'+i/26)) + string(rune('a'+i%26))
		files[name+".yaml"] = pkg(name) + strings.Repeat("# padding\n", i*50)
		want = append(want, name)
	}
	writeFiles(t, dir, files)
	for range 5 {
		c, err := Load(t.Context(), os.DirFS(dir), Options{Workers: 4})
		if err != nil {
			t.Fatal(err)
		}
		if got := packageNames(c); !slices.Equal(got, want) {
			t.Fatalf("packages %v, want %v", got, want)
		}
	}
}
