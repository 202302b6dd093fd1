package main

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/olmops/olmops/catalog/oci/ocitest"
)

// binaries writes one small stand-in per platform: the builder packs files,
// it does not care what they run.
func binaries(t *testing.T) string {
	dir := t.TempDir()
	var flag []string
	for _, p := range []string{"linux/amd64", "linux/arm64"} {
		file := filepath.Join(dir, strings.ReplaceAll(p, "/", "_"))
		if err := os.WriteFile(file, []byte("olmops for "+p), 0o755); err != nil {
			t.Fatal(err)
		}
		flag = append(flag, p+"="+file)
	}
	return strings.Join(flag, ",")
}

func TestPushToRegistry(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/olmops:v1.2.3")
	args := []string{"--binary", binaries(t), "--version", "v1.2.3", "--revision", "abc123",
		"--source", "https://github.com/olmops/olmops", "--created", "1700000000", "--push", ref}
	if err := run(t.Context(), args); err != nil {
		t.Fatal(err)
	}
	r, err := name.ParseReference(ref)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := remote.Index(r, remote.WithContext(t.Context()))
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if m.MediaType != types.OCIImageIndex || len(m.Manifests) != 2 {
		t.Fatalf("index: media type %s, %d manifests; want an OCI index of 2", m.MediaType, len(m.Manifests))
	}
	for _, d := range m.Manifests {
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		checkImage(t, d.Platform, img)
	}
}

func checkImage(t *testing.T, plat *v1.Platform, img v1.Image) {
	t.Helper()
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	p := plat.OS + "/" + plat.Architecture
	if cfg.OS+"/"+cfg.Architecture != p {
		t.Errorf("%s: config says %s/%s", p, cfg.OS, cfg.Architecture)
	}
	if got := strings.Join(cfg.Config.Entrypoint, " "); got != "/usr/local/bin/olmops" {
		t.Errorf("%s: entrypoint %q", p, got)
	}
	if cfg.Config.User != "65532:65532" {
		t.Errorf("%s: user %q, want a numeric non-root user", p, cfg.Config.User)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.version":  "v1.2.3",
		"org.opencontainers.image.revision": "abc123",
		"org.opencontainers.image.source":   "https://github.com/olmops/olmops",
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.created":  "2023-11-14T22:13:20Z",
	} {
		if got := cfg.Config.Labels[k]; got != want {
			t.Errorf("%s: label %s = %q, want %q", p, k, got, want)
		}
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("%s: %d layers (%v), want 1", p, len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			t.Fatalf("%s: the layer holds no usr/local/bin/olmops", p)
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Name != "usr/local/bin/olmops" {
			continue
		}
		data, _ := io.ReadAll(tr)
		if string(data) != "olmops for "+p || h.Mode != 0o755 {
			t.Errorf("%s: binary %q mode %o, want the %s binary, 0755", p, data, h.Mode, p)
		}
		return
	}
}

// TestReproducible builds the same inputs twice into OCI layouts: the
// digests must agree, or a rebuild could not be checked against a release.
func TestReproducible(t *testing.T) {
	bins := binaries(t)
	var digests []v1.Hash
	for range 2 {
		dir := filepath.Join(t.TempDir(), "oci")
		if err := run(t.Context(), []string{"--binary", bins, "--version", "v1", "--created", "1", "--layout", dir}); err != nil {
			t.Fatal(err)
		}
		p, err := layout.FromPath(dir)
		if err != nil {
			t.Fatal(err)
		}
		idx, err := p.ImageIndex()
		if err != nil {
			t.Fatal(err)
		}
		m, err := idx.IndexManifest()
		if err != nil || len(m.Manifests) != 2 {
			t.Fatalf("layout index: %v, %d manifests", err, len(m.Manifests))
		}
		d, err := idx.Digest()
		if err != nil {
			t.Fatal(err)
		}
		digests = append(digests, d)
	}
	if digests[0] != digests[1] {
		t.Errorf("two builds of the same inputs: %s and %s", digests[0], digests[1])
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{
		{"--binary", "linux/amd64=x"},
		{"--binary", "linux/amd64=x", "--push", "r", "--layout", "d"},
		{"--binary", "amd64", "--layout", "d"},
		{"--binary", "linux/amd64=x", "--created", "yesterday", "--layout", "d"},
	} {
		if err := run(t.Context(), args); err == nil {
			t.Errorf("image %v: no error", args)
		}
	}
}
