package oci_test

import (
	"archive/tar"
	"encoding/json"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/catalog/property"
)

const etcdCatalog = "../../examples/catalogs/operatorhub/etcd"

// etcdBundle returns the files of the real registry+v1 bundle behind the
// example catalog's etcdoperator.v0.9.4: its olm.bundle.object manifests
// as YAML under manifests/, and metadata/annotations.yaml.
func etcdBundle(t testing.TB) map[string]string {
	t.Helper()
	cfg, err := fbc.LoadDir(t.Context(), etcdCatalog)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{"metadata/annotations.yaml": `annotations:
  operators.operatorframework.io.bundle.mediatype.v1: registry+v1
  operators.operatorframework.io.bundle.manifests.v1: manifests/
  operators.operatorframework.io.bundle.metadata.v1: metadata/
  operators.operatorframework.io.bundle.package.v1: etcd
  operators.operatorframework.io.bundle.channels.v1: stable,fast
  operators.operatorframework.io.bundle.channel.default.v1: stable
`}
	for _, b := range cfg.Bundles {
		if b.Name != "etcdoperator.v0.9.4" {
			continue
		}
		for _, p := range b.Properties {
			if p.Type != property.TypeBundleObject {
				continue
			}
			data, err := property.DecodeBundleObject(p.Value)
			if err != nil {
				t.Fatal(err)
			}
			var obj struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if err := json.Unmarshal(data, &obj); err != nil {
				t.Fatal(err)
			}
			y, err := yaml.JSONToYAML(data)
			if err != nil {
				t.Fatal(err)
			}
			files["manifests/"+strings.ToLower(obj.Kind)+"-"+obj.Metadata.Name+".yaml"] = string(y)
		}
	}
	if len(files) < 3 {
		t.Fatalf("etcdoperator.v0.9.4 has %d manifests in %s, want a CSV and a CRD", len(files)-1, etcdCatalog)
	}
	return files
}

// pushBundle pushes the etcd bundle to r as repo:tag and returns its
// reference by digest.
func pushBundle(t testing.TB, r *ocitest.Registry, repoTag string) string {
	t.Helper()
	return r.Push(t, r.Ref(repoTag), ocitest.Image(t, nil, ocitest.Layer(t, ocitest.Files(etcdBundle(t))...)))
}

func newPuller(t testing.TB, opts oci.Options) *oci.Puller {
	t.Helper()
	if opts.CacheDir == "" {
		opts.CacheDir = t.TempDir()
	}
	p, err := oci.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// cacheEntries lists what a cache directory holds beyond its empty
// skeleton of folders: after a refused pull there must be nothing.
func cacheEntries(t testing.TB, dir string) []string {
	t.Helper()
	skeleton := map[string]bool{".": true, "tmp": true, "sha256": true, "catalogs": true, "catalogs/sha256": true}
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if !d.IsDir() || !skeleton[filepath.ToSlash(rel)] {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dirs makes the folder entries a layer needs.
func dirs(names ...string) []ocitest.File {
	out := make([]ocitest.File, len(names))
	for i, n := range names {
		out[i] = ocitest.File{Name: n + "/", Type: tar.TypeDir}
	}
	return out
}
