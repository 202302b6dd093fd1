package graph

import (
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/markdown"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// golden compares got with testdata/golden/name, rewriting it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if got != string(want) {
		t.Errorf("output differs from %s (go test -update rewrites it)\n--- got:\n%s\n--- want:\n%s", path, got, want)
	}
}

// loadDir returns package op of the catalog in testdata/dir.
func loadDir(t testing.TB, dir string) *catalog.Package {
	t.Helper()
	c, err := catalog.LoadDir(t.Context(), filepath.Join("testdata", dir), dir)
	if err != nil {
		t.Fatal(err)
	}
	return mustPackage(t, c)
}

// opYAML is package op with the given channel and deprecation blobs and a
// bundle op.vV for each version V.
func opYAML(blobs string, versions ...string) string {
	var b strings.Builder
	b.WriteString("schema: olm.package\nname: op\ndefaultChannel: stable\n")
	b.WriteString(blobs)
	for _, v := range versions {
		b.WriteString("---\nschema: olm.bundle\npackage: op\nname: op.v" + v + "\nimage: example.com/op:v" + v +
			"\nproperties:\n  - type: olm.package\n    value: {packageName: op, version: " + v + "}\n")
	}
	return b.String()
}

// loadYAML returns package op of a catalog of one YAML file.
func loadYAML(t testing.TB, yaml string) *catalog.Package {
	t.Helper()
	cfg, err := fbc.Load(t.Context(), fstest.MapFS{"op.yaml": {Data: []byte(yaml)}}, fbc.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return mustPackage(t, catalog.New("test", cfg))
}

func mustPackage(t testing.TB, c *catalog.Catalog) *catalog.Package {
	t.Helper()
	p := c.Packages["op"]
	if p == nil {
		t.Fatalf("catalog %s has no package op (packages: %v)", c.Name, c.PackageNames())
	}
	return p
}

// summary lists each channel as its nodes, its edges and what was left out.
func summary(g Graph) []string {
	var out []string
	for _, ch := range g.Channels {
		var nodes, edges []string
		for _, n := range ch.Nodes {
			nodes = append(nodes, strings.TrimPrefix(n.Name, "op.v"))
		}
		for _, e := range ch.Edges {
			edges = append(edges, nodes[e.From]+">"+nodes[e.To]+" "+e.Kind.String())
		}
		s := ch.Name + ": " + strings.Join(nodes, " ") + " | " + strings.Join(edges, ", ")
		if ch.Omitted > 0 {
			s += " | +" + strconv.Itoa(ch.Omitted)
		}
		out = append(out, s)
	}
	return out
}

func TestGraphBuild(t *testing.T) {
	p := loadDir(t, "after")
	tests := []struct {
		channel string
		want    []string
	}{
		{"", []string{
			"fast: 1.4.0 2.0.0 2.1.0 1.9.0 | 1.4.0>2.0.0 replaces, 2.0.0>2.1.0 replaces, 1.9.0>2.1.0 skips",
			"stable: 1.0.0 1.1.0 1.2.0 1.3.0 1.4.0 2.0.0 | 1.0.0>1.1.0 replaces, 1.1.0>1.2.0 replaces, 1.2.0>1.3.0 replaces, " +
				"1.3.0>1.4.0 replaces, 1.1.0>2.0.0 skipRange, 1.2.0>2.0.0 skipRange, 1.3.0>2.0.0 skipRange, " +
				"1.4.0>2.0.0 replaces, 1.4.0>2.0.0 skipRange",
		}},
		{"fast", []string{"fast: 1.4.0 2.0.0 2.1.0 1.9.0 | 1.4.0>2.0.0 replaces, 2.0.0>2.1.0 replaces, 1.9.0>2.1.0 skips"}},
		{"nope", nil},
	}
	for _, tt := range tests {
		t.Run("channel="+tt.channel, func(t *testing.T) {
			g := Build(p, tt.channel)
			if got := summary(g); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Build:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
	g := Build(p, "")
	fast, stable := g.Channels[0], g.Channels[1]
	if !stable.Default || fast.Default {
		t.Errorf("default channel: stable %v, fast %v", stable.Default, fast.Default)
	}
	if n := fast.Nodes[2]; !n.Head || n.Name != "op.v2.1.0" {
		t.Errorf("fast head = %+v", n)
	}
	if n := fast.Nodes[3]; !n.Missing || n.Version != "" {
		t.Errorf("skipped bundle outside the channel = %+v, want missing", n)
	}
	if n := stable.Nodes[0]; n.Deprecated != "loses data on upgrade; skip it" {
		t.Errorf("op.v1.0.0 deprecation = %q", n.Deprecated)
	}
}

func TestGraphBadSkipRange(t *testing.T) {
	p := loadYAML(t, opYAML(`---
schema: olm.channel
package: op
name: stable
entries:
  - name: op.v1.0.0
  - name: op.v1.1.0
    replaces: op.v1.0.0
    skipRange: '>=banana'
`, "1.0.0", "1.1.0"))
	want := []string{"stable: 1.0.0 1.1.0 | 1.0.0>1.1.0 replaces"}
	if got := summary(Build(p, "")); !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestGraphEscaping(t *testing.T) {
	if got := mermaidText(`a "b" <c>` + "\n"); got != "a #quot;b#quot; #lt;c#gt; " {
		t.Errorf("mermaidText = %q", got)
	}
	if got := dotQuote(`a "b" \ c` + "\n"); got != `"a \"b\" \\ c\n"` {
		t.Errorf("dotQuote = %q", got)
	}
	if got := markdown.Code("a|b`c"); got != "`a\\|b'c`" {
		t.Errorf("code = %q", got)
	}
	if got := markdown.Text(" x |\n y "); got != `x \| y` {
		t.Errorf("cell = %q", got)
	}
}
