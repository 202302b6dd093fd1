package render

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

const minimalCSV = `apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: tiny.v0.1.0
spec:
  version: 0.1.0
  install:
    strategy: deployment
    spec:
      deployments: []
`

func TestFromDir(t *testing.T) {
	fsys := fstest.MapFS{
		"bundle/manifests/tiny.clusterserviceversion.yaml": {Data: []byte(minimalCSV)},
		// Several documents, empty ones and comments included.
		"bundle/manifests/objects.yml":  {Data: []byte("# leading comment\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n---\n# only a comment\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n")},
		"bundle/manifests/service.json": {Data: []byte(`{"apiVersion": "v1", "kind": "Service", "metadata": {"name": "c"}}`)},
		"bundle/manifests/README.md":    {Data: []byte("not a manifest")},
		"bundle/manifests/sub/x.yaml":   {Data: []byte("not: read")},
		"bundle/metadata/annotations.yaml": {Data: []byte(`annotations:
  operators.operatorframework.io.bundle.package.v1: tiny
  operators.operatorframework.io.bundle.channels.v1: alpha
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  some.number: 3
`)},
	}
	b, err := FromDir(fsys, "bundle")
	if err != nil {
		t.Fatal(err)
	}
	if b.Name != "tiny.v0.1.0" || b.Package != "tiny" || b.Version != "0.1.0" || b.CSV == nil || b.CSVObject == nil {
		t.Errorf("bundle = %s %s %s", b.Name, b.Package, b.Version)
	}
	if got := identities(b.Objects); strings.Join(got, ",") != "ConfigMap /a,Secret /b,Service /c" {
		t.Errorf("objects = %v", got)
	}
	if b.Annotations["operators.operatorframework.io.bundle.channels.v1"] != "alpha" || b.Annotations["some.number"] != "3" {
		t.Errorf("annotations = %v", b.Annotations)
	}

	delete(fsys, "bundle/metadata/annotations.yaml")
	b, err = FromDir(fsys, "bundle")
	if err != nil || b.Annotations != nil || b.Package != "" {
		t.Errorf("without annotations.yaml: %v, %v, %q", err, b.Annotations, b.Package)
	}
}

func TestFromDirErrors(t *testing.T) {
	csv := func(extra string) fstest.MapFS {
		return fstest.MapFS{
			"b/manifests/csv.yaml":   {Data: []byte(minimalCSV)},
			"b/manifests/other.yaml": {Data: []byte(extra)},
		}
	}
	tests := []struct {
		name   string
		fsys   fstest.MapFS
		want   string
		wantIs error
	}{
		{"no manifests folder", fstest.MapFS{"b/metadata/annotations.yaml": {Data: []byte("annotations: {}")}}, "b/manifests: bundle carries no manifests", ErrNoManifests},
		{"empty manifests folder", fstest.MapFS{"b/manifests/README": {Data: []byte("x")}}, "b/manifests: bundle carries no manifests", ErrNoManifests},
		{"no CSV", fstest.MapFS{"b/manifests/cm.yaml": {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n")}}, "b/manifests: no ClusterServiceVersion", nil},
		{"two CSVs", csv(minimalCSV), "b/manifests/other.yaml:1: a second ClusterServiceVersion (the first is at b/manifests/csv.yaml:1)", nil},
		{"YAML syntax in the second document", csv("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: b\n   bad: indent\n"), "b/manifests/other.yaml:9: ", nil},
		{"tab indentation", csv("apiVersion: v1\nkind: ConfigMap\nmetadata:\n\tname: a\n"), "b/manifests/other.yaml:4: ", nil},
		{"no kind", csv("\n\n# comment\napiVersion: v1\nmetadata: {name: a}\n"), "b/manifests/other.yaml:4: object has no kind", nil},
		{"no name", csv("apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: a-}\n"), "b/manifests/other.yaml:1: object has no metadata.name", nil},
		{"no apiVersion", csv("kind: ConfigMap\nmetadata: {name: a}\n"), "b/manifests/other.yaml:1: object has no apiVersion", nil},
		{"a list", csv("- a\n- b\n"), "b/manifests/other.yaml:1: not a Kubernetes object", nil},
		{"labels not strings", csv("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {a: [1]}}\n"), "b/manifests/other.yaml:1: metadata.labels", nil},
		{"JSON syntax", fstest.MapFS{"b/manifests/csv.json": {Data: []byte("{\"apiVersion\": \"v1\",\n\"kind\": ConfigMap}")}}, "b/manifests/csv.json:2: ", nil},
		{"second JSON value", fstest.MapFS{"b/manifests/csv.json": {Data: []byte("{\"apiVersion\": \"v1\", \"kind\": \"ConfigMap\", \"metadata\": {\"name\": \"a\"}}\n\n  {\"kind\": \"Secret\"}")}}, "b/manifests/csv.json:3: object has no apiVersion", nil},
		{"CSV of the wrong shape", fstest.MapFS{"b/manifests/csv.yaml": {Data: []byte(strings.Replace(minimalCSV, "deployments: []", "deployments: {}", 1))}}, "b/manifests/csv.yaml:1: ClusterServiceVersion tiny.v0.1.0: json: cannot unmarshal", nil},
		{"annotations syntax", fstest.MapFS{"b/manifests/csv.yaml": {Data: []byte(minimalCSV)}, "b/metadata/annotations.yaml": {Data: []byte("annotations:\n  a: b\n c: d\n")}}, "b/metadata/annotations.yaml:2: did not find expected key", nil},
		{"annotation not a string", fstest.MapFS{"b/manifests/csv.yaml": {Data: []byte(minimalCSV)}, "b/metadata/annotations.yaml": {Data: []byte("annotations:\n  a: [b]\n")}}, "b/metadata/annotations.yaml: annotation a: want a string", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := FromDir(tt.fsys, "b")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to start with %q", err, tt.want)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error %v does not wrap %v", err, tt.wantIs)
			}
		})
	}
}

func TestFromDirBounds(t *testing.T) {
	many := fstest.MapFS{}
	for i := range maxFiles + 1 {
		many[fmt.Sprintf("b/manifests/cm-%04d.yaml", i)] = &fstest.MapFile{Data: []byte(fmt.Sprintf("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm-%d}\n", i))}
	}
	if _, err := FromDir(many, "b"); err == nil || !strings.Contains(err.Error(), "more than 1000 files") {
		t.Errorf("%d files: error = %v", maxFiles+1, err)
	}
	// An endless file stops being read at the bound.
	if _, err := FromDir(endlessFS{}, "b"); err == nil || !strings.Contains(err.Error(), "more than 64 MiB") {
		t.Errorf("endless file: error = %v", err)
	}
}

// endlessFS holds b/manifests/huge.yaml, which never ends.
type endlessFS struct{}

func (endlessFS) Open(name string) (fs.File, error) {
	switch name {
	case "b/manifests":
		return &endlessDir{}, nil
	case "b/manifests/huge.yaml":
		return &endlessFile{}, nil
	}
	return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
}

type endlessFile struct{}

func (*endlessFile) Stat() (fs.FileInfo, error) { return endlessInfo{"huge.yaml", false}, nil }
func (*endlessFile) Close() error               { return nil }
func (*endlessFile) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = '#'
	}
	return len(p), nil
}

type endlessDir struct{ done bool }

func (*endlessDir) Stat() (fs.FileInfo, error) { return endlessInfo{"manifests", true}, nil }
func (*endlessDir) Close() error               { return nil }
func (*endlessDir) Read([]byte) (int, error)   { return 0, io.EOF }
func (d *endlessDir) ReadDir(int) ([]fs.DirEntry, error) {
	if d.done {
		return nil, nil
	}
	d.done = true
	return []fs.DirEntry{fs.FileInfoToDirEntry(endlessInfo{"huge.yaml", false})}, nil
}

type endlessInfo struct {
	name string
	dir  bool
}

func (i endlessInfo) Name() string       { return i.name }
func (i endlessInfo) Size() int64        { return 0 }
func (i endlessInfo) ModTime() time.Time { return time.Time{} }
func (i endlessInfo) IsDir() bool        { return i.dir }
func (i endlessInfo) Sys() any           { return nil }
func (i endlessInfo) Mode() fs.FileMode {
	if i.dir {
		return fs.ModeDir | 0o555
	}
	return 0o444
}

// FuzzFromDir feeds arbitrary manifests to FromDir: it may refuse them but
// must not panic, and what it accepts must render or fail cleanly.
func FuzzFromDir(f *testing.F) {
	f.Add([]byte(minimalCSV), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n"))
	f.Add([]byte(syntheticCSV), []byte(syntheticCRD))
	f.Add([]byte("---\n---\n"), []byte("{\"a\": 1}"))
	f.Add([]byte(minimalCSV), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels: {x: 1}\n"))
	f.Fuzz(func(t *testing.T, csv, other []byte) {
		fsys := fstest.MapFS{
			"b/manifests/csv.yaml":   {Data: csv},
			"b/manifests/other.yaml": {Data: other},
		}
		b, err := FromDir(fsys, "b")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "b/") {
				t.Errorf("error %q does not name a file", err)
			}
			return
		}
		if b.CSV == nil || b.CSVObject == nil {
			t.Fatalf("FromDir returned a bundle without CSV")
		}
		res, err := Render(b, Options{Namespace: "ops", TargetNamespaces: []string{"ops"}})
		if err != nil {
			return
		}
		if _, err := Files(res.Objects); err != nil {
			t.Errorf("Files of a rendering: %v", err)
		}
	})
}
