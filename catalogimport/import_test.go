package catalogimport

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	yaml "go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/catalog/property"
)

const exampleOperatorhub = "../examples/catalogs/operatorhub"

// importer pulls into a cache of the test's own.
func importer(t testing.TB) Images {
	t.Helper()
	p, err := oci.New(oci.Options{CacheDir: t.TempDir(), MaxImageBytes: MaxImageBytes, MaxFiles: MaxFiles})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// into imports ref into repo's catalogs/operatorhub.
func into(ref, repo string, images Images, pkgs ...string) Options {
	return Options{Image: ref, Into: "catalogs/operatorhub", Dir: repo, Images: images, Packages: pkgs}
}

// catalogFS reads the example operatorhub catalog into memory, applying
// edit to etcd/catalog.yaml.
func catalogFS(t testing.TB, edit func(string) string) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(exampleOperatorhub), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(exampleOperatorhub, p))
		m[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		m["etcd/catalog.yaml"].Data = []byte(edit(string(m["etcd/catalog.yaml"].Data)))
	}
	return m
}

// withEtcd096 adds bundle etcdoperator.v0.9.6 at the head of stable.
func withEtcd096(t testing.TB) func(string) string {
	return func(s string) string {
		const stableHead = "  - name: etcdoperator.v0.9.4\n    replaces: etcdoperator.v0.9.2\n    skipRange: '>=0.9.0 <0.9.4'\n---\nschema: olm.channel\npackage: etcd\nname: fast\n"
		if !strings.Contains(s, stableHead) {
			t.Fatal("the example etcd catalog changed; update withEtcd096")
		}
		s = strings.Replace(s, stableHead, "  - name: etcdoperator.v0.9.6\n    replaces: etcdoperator.v0.9.4\n"+stableHead, 1)
		return s + `---
schema: olm.bundle
package: etcd
name: etcdoperator.v0.9.6
image: quay.io/olmops-examples/etcd-operator-bundle:v0.9.6
properties:
  - type: olm.package
    value:
      packageName: etcd
      version: 0.9.6
  - type: olm.gvk
    value:
      group: etcd.database.coreos.com
      kind: EtcdCluster
      version: v1beta2
`
	}
}

func TestRun(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/operatorhub:latest")
	repo, images := t.TempDir(), importer(t)
	dir := filepath.Join(repo, "catalogs", "operatorhub")

	reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, nil)))
	sum, err := Run(t.Context(), into(ref, repo, images))
	if err != nil {
		t.Fatalf("first import: %v", err)
	}
	if got := sum.Title(); got != "catalog operatorhub: etcd 0.10.0, memcached-operator 0.0.1 available" || !sum.Changed {
		t.Errorf("first import: title %q, changed %v", got, sum.Changed)
	}
	c, err := catalog.LoadDir(t.Context(), dir, "operatorhub")
	if err != nil {
		t.Fatal(err)
	}
	if ps := c.Validate(); len(ps) != 0 {
		t.Fatalf("imported catalog does not validate:\n%v", ps)
	}
	before := readTree(t, dir)

	sum, err = Run(t.Context(), into(ref, repo, images))
	if err != nil || sum.Changed || sum.Title() != "catalog operatorhub: no changes" {
		t.Errorf("re-import of the same image: %v, %+v", err, sum)
	}

	reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, withEtcd096(t))))
	sum, err = Run(t.Context(), into(ref, repo, images))
	if err != nil {
		t.Fatalf("second import: %v", err)
	}
	if want := []BundleChange{{"etcd", "etcdoperator.v0.9.6", "0.9.6", ""}}; !slices.Equal(sum.NewBundles, want) || len(sum.RemovedBundles) != 0 || !sum.Changed {
		t.Errorf("summary = %+v, want new bundles %v", sum, want)
	}
	if want := []HeadMove{{"etcd", "stable", "0.9.4", "0.9.6"}}; !slices.Equal(sum.HeadMoves, want) {
		t.Errorf("head moves = %v, want %v", sum.HeadMoves, want)
	}
	if got := sum.Title(); got != "catalog operatorhub: etcd 0.9.6 available" {
		t.Errorf("Title = %q", got)
	}
	if body := sum.Body(); !strings.Contains(body, "- etcd 0.9.6 (`etcdoperator.v0.9.6`)") || !strings.Contains(body, "- etcd: stable head 0.9.4 → 0.9.6") {
		t.Errorf("Body:\n%s", body)
	}

	after := readTree(t, dir)
	if after["memcached-operator/catalog.yaml"] != before["memcached-operator/catalog.yaml"] || len(after) != len(before) {
		t.Errorf("files other than etcd's changed: %v", slices.Sorted(maps.Keys(after)))
	}
	removed, added := lineDiff(before["etcd/catalog.yaml"], after["etcd/catalog.yaml"])
	if len(removed) != 0 || len(added) != 2 {
		t.Fatalf("re-import diff: removed %q, added %q; want two additions only", removed, added)
	}
	if added[0] != "  - name: etcdoperator.v0.9.6\n    replaces: etcdoperator.v0.9.4\n" {
		t.Errorf("channel hunk = %q, want the new stable entry", added[0])
	}
	// The hunk may start anywhere in the new document; it holds it whole.
	if strings.Count(added[1], "schema: olm.bundle\n") != 1 || strings.Count("\n"+added[1], "\nname: ") != 1 || !strings.Contains(added[1], "name: etcdoperator.v0.9.6\n") {
		t.Errorf("second hunk = %q, want the one new bundle", added[1])
	}
}

func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		out[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lineDiff returns the hunks of lines removed from a and added in b, by
// longest common subsequence.
func lineDiff(a, b string) (removed, added []string) {
	x, y := strings.SplitAfter(a, "\n"), strings.SplitAfter(b, "\n")
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var del, ins strings.Builder
	flush := func() {
		if del.Len() > 0 {
			removed = append(removed, del.String())
		}
		if ins.Len() > 0 {
			added = append(added, ins.String())
		}
		del.Reset()
		ins.Reset()
	}
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			flush()
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] >= lcs[i+1][j]):
			ins.WriteString(y[j])
			j++
		default:
			del.WriteString(x[i])
			i++
		}
	}
	flush()
	return removed, added
}

func TestRunPackages(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/operatorhub:v1")
	reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, nil)))
	repo := t.TempDir()
	dir := filepath.Join(repo, "catalogs", "operatorhub")
	if err := os.MkdirAll(filepath.Join(dir, "cert-manager"), 0o755); err != nil {
		t.Fatal(err)
	}
	sum, err := Run(t.Context(), into(ref, repo, importer(t), "etcd"))
	if err != nil {
		t.Fatal(err)
	}
	if got := slices.Sorted(maps.Keys(readTree(t, dir))); !slices.Equal(got, []string{"etcd/catalog.yaml"}) {
		t.Errorf("folder holds %v, want only etcd", got)
	}
	if got := sum.Title(); got != "catalog operatorhub: etcd 0.10.0 available" {
		t.Errorf("title %q", got)
	}
}

func TestRunErrors(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	good := reg.Ref("olmops/operatorhub:v1")
	reg.Push(t, good, ocitest.CatalogImage(t, catalogFS(t, nil)))
	invalid := reg.Ref("olmops/invalid:v1")
	reg.Push(t, invalid, ocitest.CatalogImage(t, catalogFS(t, func(s string) string {
		return strings.Replace(s, "defaultChannel: stable", "defaultChannel: nope", 1)
	})))
	undecodable := reg.Ref("olmops/undecodable:v1")
	reg.Push(t, undecodable, ocitest.CatalogImage(t, fstest.MapFS{"x/catalog.json": {Data: []byte(`{"schema": "olm.package", "name": }`)}}))
	escape := reg.Ref("olmops/escape:v1")
	reg.Push(t, escape, ocitest.CatalogImage(t, fstest.MapFS{"x/catalog.yaml": {Data: []byte("schema: olm.package\nname: ../../evil\n---\nschema: vendor.blob\npackage: ../blob\n")}}))
	noConfigs := reg.Ref("olmops/no-configs:v1")
	reg.Push(t, noConfigs, ocitest.Image(t, nil, ocitest.Layer(t, ocitest.Files(map[string]string{"etc/x": "x"})...)))
	images := importer(t)

	tests := []struct {
		name    string
		opts    func(repo string) Options
		invalid bool // an *InvalidError
		err     string
	}{
		{"unknown package", func(r string) Options { return into(good, r, images, "nope") }, false, `package "nope" is not in catalog image ` + good + "; it has: etcd, memcached-operator"},
		{"invalid catalog", func(r string) Options { return into(invalid, r, images) }, true, "configs/etcd/catalog.yaml:"},
		{"undecodable file", func(r string) Options { return into(undecodable, r, images) }, true, undecodable + "/configs/x/catalog.json:1: "},
		{"package name escapes", func(r string) Options { return into(escape, r, images) }, true, "/configs/x/catalog.yaml:4: package name \"../blob\" cannot be a folder name"},
		{"image not found", func(r string) Options { return into(reg.Ref("olmops/missing:v1"), r, images) }, false, "image " + reg.Ref("olmops/missing:v1") + ": not found"},
		{"not a catalog", func(r string) Options { return into(noConfigs, r, images) }, false, "is not a file-based catalog: no /configs folder"},
		{"into outside the repo", func(r string) Options {
			o := into(good, r, images)
			o.Into = "../elsewhere"
			return o
		}, false, "want a folder inside the repository"},
		{"no into", func(r string) Options { o := into(good, r, images); o.Into = ""; return o }, false, "want a folder inside the repository"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := t.TempDir()
			previous := filepath.Join(repo, "catalogs", "operatorhub", "etcd", "catalog.yaml")
			if err := os.MkdirAll(filepath.Dir(previous), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(previous, []byte("schema: olm.package\nname: etcd\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Run(t.Context(), tt.opts(repo))
			var inv *InvalidError
			if err == nil || !strings.Contains(err.Error(), tt.err) || errors.As(err, &inv) != tt.invalid {
				t.Errorf("error %v (invalid: %v); want %q (invalid: %v)", err, inv != nil, tt.err, tt.invalid)
			}
			if got := readTree(t, filepath.Join(repo, "catalogs")); len(got) != 1 || got["operatorhub/etcd/catalog.yaml"] != "schema: olm.package\nname: etcd\n" {
				t.Errorf("a failed import changed the repository: %v", slices.Sorted(maps.Keys(got)))
			}
		})
	}
}

func TestReplaceDirKeepsOldContentOnFailure(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "operatorhub")
	if _, err := replaceDir(dir, map[string][]byte{"etcd/catalog.yaml": []byte("old\n")}); err != nil {
		t.Fatal(err)
	}
	// "etcd" cannot be both a file and a folder: writing fails half-way.
	_, err := replaceDir(dir, map[string][]byte{"etcd": []byte("x"), "etcd/catalog.yaml": []byte("new\n"), "a/catalog.yaml": []byte("a")})
	if err == nil {
		t.Fatal("replaceDir succeeded")
	}
	got, _ := os.ReadFile(filepath.Join(dir, "etcd", "catalog.yaml"))
	entries, _ := os.ReadDir(parent)
	if string(got) != "old\n" || len(entries) != 1 {
		t.Errorf("after a failed write: etcd/catalog.yaml = %q, %d entries beside it; want the old content alone", got, len(entries))
	}
}

// BenchmarkImportCatalog imports a 100-package catalog image into a fresh
// repository and cache each time (target < 5 s).
func BenchmarkImportCatalog(b *testing.B) {
	reg := ocitest.NewRegistry(b)
	ref := reg.Ref("olmops/big:v1")
	reg.Push(b, ref, ocitest.CatalogImage(b, bigCatalog(b, 100)))
	var total time.Duration
	for b.Loop() {
		b.StopTimer()
		repo, images := b.TempDir(), importer(b)
		b.StartTimer()
		start := time.Now()
		if _, err := Run(b.Context(), into(ref, repo, images)); err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
	}
	b.ReportMetric(total.Seconds()*1000/float64(b.N), "ms/import")
}

// bigCatalog builds n packages shaped like the etcd example: two channels
// and five bundles each, every bundle with its CSV as olm.bundle.object.
func bigCatalog(b *testing.B, n int) fstest.MapFS {
	etcd := catalogFS(b, nil)["etcd/catalog.yaml"].Data
	m := fstest.MapFS{}
	for i := range n {
		pkg := fmt.Sprintf("operator-%03d", i)
		s := strings.NewReplacer("package: etcd", "package: "+pkg, "name: etcd\n", "name: "+pkg+"\n", "packageName: etcd", "packageName: "+pkg).Replace(string(etcd))
		m[pkg+"/catalog.yaml"] = &fstest.MapFile{Data: []byte(s)}
	}
	return m
}

// FuzzJSONNode checks that a JSON property value written into a catalog
// file reads back, through the catalog loader, as the same value.
func FuzzJSONNode(f *testing.F) {
	f.Add(`{"packageName": "etcd", "version": "0.9.4"}`)
	f.Add(`{"a": [1, 2.5, -3e4, true, null, "true", "1.0", "x: y", "line\nline\n"], "a": {}}`)
	f.Add(`"#comment"`)
	f.Add(`18700000000000000000`)
	f.Add(`[-0, 1E400]`)
	f.Add(`{"": ["\n0", " a\nb", "a \n b\n", "\t\n"]}`)
	f.Fuzz(func(t *testing.T, s string) {
		var want any
		if json.Unmarshal([]byte(s), &want) != nil {
			return
		}
		doc, err := bundleNode(fbc.Bundle{Package: "p", Name: "b", Properties: []property.Property{{Type: "x", Value: property.JSONValue([]byte(s))}}})
		if err != nil {
			t.Fatalf("bundleNode(%q): %v", s, err)
		}
		out, err := encodeYAML([]*yaml.Node{doc})
		if err != nil {
			t.Fatalf("encode %q: %v", s, err)
		}
		cfg, err := fbc.Decode("catalog.yaml", out)
		if err != nil || len(cfg.Bundles) != 1 || len(cfg.Bundles[0].Properties) != 1 {
			t.Fatalf("%q became a file the loader refuses: %v\n%s", s, err, out)
		}
		got, err := cfg.Bundles[0].Properties[0].Value.JSON()
		if err != nil {
			t.Fatalf("%q does not read back: %v\n%s", s, err, out)
		}
		var back any
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatal(err)
		}
		if !sameJSON(want, back) {
			t.Errorf("%q came back as %s\nYAML:\n%s", s, got, out)
		}
	})
}

// sameJSON compares decoded JSON values, numbers by value (-0 is 0).
func sameJSON(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !sameJSON(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		return ok && slices.EqualFunc(x, y, sameJSON)
	}
	return a == b
}
