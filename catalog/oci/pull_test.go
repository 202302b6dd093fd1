package oci_test

import (
	"errors"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"

	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
)

func TestBundle(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	byDigest := pushBundle(t, reg, "olmops/etcd-bundle:v0.9.4")
	cache := t.TempDir()
	p := newPuller(t, oci.Options{CacheDir: cache})

	img, err := p.Bundle(t.Context(), reg.Ref("olmops/etcd-bundle:v0.9.4"))
	if err != nil {
		t.Fatal(err)
	}
	d, _ := name.NewDigest(byDigest)
	if img.Digest != d.DigestStr() || img.Pinned != byDigest || img.Root != "/" {
		t.Errorf("image = %+v, want digest %s", img, byDigest)
	}
	hex := strings.TrimPrefix(img.Digest, "sha256:")
	if want := filepath.Join(cache, "sha256", hex); img.Dir != want {
		t.Errorf("Dir = %s, want %s", img.Dir, want)
	}
	want := etcdBundle(t)
	for name, content := range want {
		got, err := fs.ReadFile(img.FS, name)
		if err != nil || string(got) != content {
			t.Errorf("%s: got %d bytes (err %v), want the %d pushed", name, len(got), err, len(content))
		}
	}
	if err := fstest.TestFS(img.FS, "metadata/annotations.yaml"); err != nil {
		t.Error(err)
	}
}

func TestCacheHitDoesNoNetwork(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	byDigest := pushBundle(t, reg, "olmops/etcd-bundle:v0.9.4")
	cache := t.TempDir()
	if _, err := newPuller(t, oci.Options{CacheDir: cache}).Bundle(t.Context(), byDigest); err != nil {
		t.Fatal(err)
	}
	before := reg.Requests()
	// A new Puller on the same cache: nothing in memory to help it.
	p := newPuller(t, oci.Options{CacheDir: cache})
	img, err := p.Bundle(t.Context(), byDigest)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Resolve(t.Context(), byDigest); err != nil {
		t.Fatal(err)
	}
	if n := reg.Requests() - before; n != 0 {
		t.Errorf("cached pull made %d requests, want 0", n)
	}
	reg.Close()
	if _, err := fs.Stat(img.FS, "manifests"); err != nil {
		t.Errorf("cached image lost its manifests: %v", err)
	}
	if _, err := p.Bundle(t.Context(), byDigest); err != nil {
		t.Errorf("cached pull with the registry down: %v", err)
	}
}

// The cache is the owner's only: private images are unpacked there, and a
// cache made world-readable by an older olmops is closed on the next pull.
func TestCachePermissions(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	cache := t.TempDir()
	if err := os.Chmod(cache, 0o755); err != nil {
		t.Fatal(err)
	}
	p := newPuller(t, oci.Options{CacheDir: cache})
	if _, err := p.Bundle(t.Context(), pushBundle(t, reg, "olmops/etcd-bundle:v0.9.4")); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Catalog(t.Context(), reg.Push(t, reg.Ref("olmops/catalog:v1"), ocitest.CatalogImage(t, os.DirFS("../../examples/catalogs")))); err != nil {
		t.Fatal(err)
	}
	files := 0
	err := filepath.WalkDir(cache, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if info.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want no access for group and others", p, info.Mode().Perm())
		}
		if !d.IsDir() {
			files++
		}
		return nil
	})
	if err != nil || files == 0 {
		t.Fatalf("walk: %v, %d files", err, files)
	}
}

func TestBundleErrors(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	notBundle := reg.Push(t, reg.Ref("olmops/not-a-bundle:v1"),
		ocitest.Image(t, nil, ocitest.Layer(t, ocitest.Files(map[string]string{"metadata/annotations.yaml": "annotations: {}\n"})...)))
	missing := reg.Ref("olmops/missing:v1")
	tests := []struct {
		name   string
		image  string
		reason error
		msg    string
	}{
		{"not a bundle", notBundle, oci.ErrNotBundle, "image " + notBundle + " is not a registry+v1 bundle: no manifests/ folder"},
		{"unknown tag", missing, oci.ErrNotFound, "image " + missing + ": not found: "},
		{"unknown digest", reg.Ref("olmops/missing@sha256:" + strings.Repeat("ab", 32)), oci.ErrNotFound, ": not found: "},
		{"bad reference", "Not A Reference", nil, "image Not A Reference: invalid reference"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			_, err := newPuller(t, oci.Options{CacheDir: cache}).Bundle(t.Context(), tt.image)
			if err == nil {
				t.Fatal("pull succeeded")
			}
			if tt.reason != nil && !errors.Is(err, tt.reason) {
				t.Errorf("error %q is not %v", err, tt.reason)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("error %q does not say %q", err, tt.msg)
			}
			if left := cacheEntries(t, cache); len(left) > 0 {
				t.Errorf("cache holds %v after a failed pull", left)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	stall := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/manifests/") && r.Method != http.MethodPut {
				<-r.Context().Done() // until the client gives up
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	reg := ocitest.NewRegistry(t, ocitest.WithMiddleware(stall))
	p := newPuller(t, oci.Options{Timeout: 200 * time.Millisecond})
	image := reg.Ref("olmops/etcd-bundle:v0.9.4")
	start := time.Now()
	_, err := p.Bundle(t.Context(), image)
	if !errors.Is(err, oci.ErrTimeout) || !strings.Contains(err.Error(), "image "+image+": timed out") {
		t.Errorf("error = %v, want a timeout naming the image", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("gave up after %v, want about the 200ms timeout", d)
	}
}

func TestCatalog(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	fbcFiles := fstest.MapFS{"etcd/catalog.yaml": {Data: []byte("schema: olm.package\nname: etcd\n")}}
	base := ocitest.Layer(t, ocitest.Files(map[string]string{"bin/opm": "#!/bin/sh\n", "etc/os-release": "ID=test\n"})...)
	configs := ocitest.Layer(t, ocitest.FilesFromFS(t, fbcFiles, "data/catalog")...)
	tests := []struct {
		name    string
		labels  map[string]string
		root    string
		wantErr error
	}{
		{"label", map[string]string{oci.ConfigsLabel: "/data/catalog"}, "/data/catalog", nil},
		{"label without slash", map[string]string{oci.ConfigsLabel: "data/catalog/"}, "/data/catalog", nil},
		{"default configs missing", nil, "", oci.ErrNotCatalog},
		{"label leaves root", map[string]string{oci.ConfigsLabel: "../x"}, "", oci.ErrNotCatalog},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := reg.Push(t, reg.Ref("olmops/catalog:"+strings.ReplaceAll(tt.name, " ", "-")), ocitest.Image(t, tt.labels, base, configs))
			cache := t.TempDir()
			img, err := newPuller(t, oci.Options{CacheDir: cache}).Catalog(t.Context(), ref)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), ref) {
					t.Errorf("error = %v, want %v naming the image", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if img.Root != tt.root {
				t.Errorf("Root = %q, want %q", img.Root, tt.root)
			}
			if got, err := fs.ReadFile(img.FS, "etcd/catalog.yaml"); err != nil || !strings.Contains(string(got), "name: etcd") {
				t.Errorf("catalog file: %q, %v", got, err)
			}
			// Only the catalog directory is unpacked, not the base image.
			for _, e := range cacheEntries(t, cache) {
				if strings.Contains(e, "opm") || strings.Contains(e, "os-release") {
					t.Errorf("cache holds %s from outside the catalog directory", e)
				}
			}
			again, err := newPuller(t, oci.Options{CacheDir: cache}).Catalog(t.Context(), ref)
			if err != nil || again.Root != tt.root || again.Dir != img.Dir {
				t.Errorf("cached catalog = %+v, %v; want %+v", again, err, img)
			}
		})
	}
}

// A multi-platform catalog gives its linux/amd64 image.
func TestCatalogIndex(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	fbcFiles := fstest.MapFS{"etcd/catalog.yaml": {Data: []byte("schema: olm.package\nname: etcd\n")}}
	amd64 := ocitest.CatalogImage(t, fbcFiles)
	other := ocitest.Image(t, nil, ocitest.Layer(t, ocitest.Files(map[string]string{"configs/arm/catalog.yaml": "schema: olm.package\nname: arm\n"})...))
	idx := mutate.AppendManifests(empty.Index,
		mutate.IndexAddendum{Add: other, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "arm64"}}},
		mutate.IndexAddendum{Add: amd64, Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: "linux", Architecture: "amd64"}}},
	)
	tag, err := name.NewTag(reg.Ref("olmops/catalog:multi"))
	if err != nil {
		t.Fatal(err)
	}
	if err := remote.WriteIndex(tag, idx, remote.WithContext(t.Context())); err != nil {
		t.Fatal(err)
	}
	img, err := newPuller(t, oci.Options{}).Catalog(t.Context(), tag.String())
	if err != nil {
		t.Fatal(err)
	}
	d, _ := idx.Digest()
	if img.Digest != d.String() {
		t.Errorf("Digest = %s, want the index's %s", img.Digest, d)
	}
	if _, err := fs.Stat(img.FS, "etcd/catalog.yaml"); err != nil {
		t.Errorf("not the linux/amd64 image: %v", err)
	}
}
