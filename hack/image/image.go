package main

import (
	"archive/tar"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Where the binary lives in the image, and who runs it: a numeric non-root
// user, so that runAsNonRoot admits the pod without a user name lookup.
const (
	binaryPath = "usr/local/bin/olmops"
	user       = "65532:65532"
)

// spec is what one image build needs: a static binary per platform and the
// facts that go into labels. Created stamps every file and the config, so
// the same inputs give the same digest.
type spec struct {
	// Binaries maps a platform ("linux/amd64") to its olmops binary.
	Binaries map[string]string
	Version  string
	Revision string
	Source   string
	Created  time.Time
}

// labels are the OCI annotations of the image config.
func (s spec) labels() map[string]string {
	l := map[string]string{
		"org.opencontainers.image.title":       "olmops",
		"org.opencontainers.image.description": "Operator Lifecycle Manager through Git",
		"org.opencontainers.image.licenses":    "Apache-2.0",
		"org.opencontainers.image.version":     s.Version,
		"org.opencontainers.image.created":     s.Created.UTC().Format(time.RFC3339),
	}
	if s.Revision != "" {
		l["org.opencontainers.image.revision"] = s.Revision
	}
	if s.Source != "" {
		l["org.opencontainers.image.source"] = s.Source
	}
	return l
}

// build makes the multi-platform index: one image per binary, each a single
// layer on no base image.
func build(s spec) (v1.ImageIndex, error) {
	if len(s.Binaries) == 0 {
		return nil, fmt.Errorf("no binaries given")
	}
	platforms := make([]string, 0, len(s.Binaries))
	for p := range s.Binaries {
		platforms = append(platforms, p)
	}
	sort.Strings(platforms)
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, p := range platforms {
		plat, err := parsePlatform(p)
		if err != nil {
			return nil, err
		}
		img, err := platformImage(s, plat, s.Binaries[p])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{Add: img, Descriptor: v1.Descriptor{Platform: plat}})
	}
	return idx, nil
}

func parsePlatform(p string) (*v1.Platform, error) {
	os, arch, ok := strings.Cut(p, "/")
	if !ok || os == "" || arch == "" {
		return nil, fmt.Errorf("platform %q: want OS/ARCH, such as linux/amd64", p)
	}
	return &v1.Platform{OS: os, Architecture: arch}, nil
}

func platformImage(s spec, plat *v1.Platform, binary string) (v1.Image, error) {
	bin, err := os.ReadFile(binary)
	if err != nil {
		return nil, err
	}
	layer, err := rootLayer(bin, s.Created)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = plat.OS, plat.Architecture
	cfg.Config = v1.Config{
		Entrypoint: []string{"/" + binaryPath},
		User:       user,
		WorkingDir: "/",
		Env:        []string{"PATH=/usr/local/bin", "HOME=/tmp"},
		Labels:     s.labels(),
	}
	if img, err = mutate.ConfigFile(img, cfg); err != nil {
		return nil, err
	}
	img, err = mutate.Append(img, mutate.Addendum{
		Layer:     layer,
		MediaType: types.OCILayer,
		History:   v1.History{Created: v1.Time{Time: s.Created}, CreatedBy: "make image: " + filepath.Base(binary)},
	})
	if err != nil {
		return nil, err
	}
	return mutate.CreatedAt(img, v1.Time{Time: s.Created})
}

// rootLayer is the whole file system: the binary, a passwd and group file
// naming its user (for tools that look the user up), and a world-writable
// /tmp for HOME and caches when the root file system is read-only.
func rootLayer(bin []byte, created time.Time) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	entries := []struct {
		name string
		mode int64
		data []byte
	}{
		{"etc/", 0o755, nil},
		{"etc/group", 0o644, []byte("root:x:0:\nnonroot:x:65532:\n")},
		{"etc/passwd", 0o644, []byte("root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/tmp:/sbin/nologin\n")},
		{"tmp/", 0o1777, nil},
		{"usr/", 0o755, nil},
		{"usr/local/", 0o755, nil},
		{"usr/local/bin/", 0o755, nil},
		{binaryPath, 0o755, bin},
	}
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Mode: e.mode, ModTime: created, Format: tar.FormatPAX, Uname: "root", Gname: "root"}
		if strings.HasSuffix(e.name, "/") {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag, h.Size = tar.TypeReg, int64(len(e.data))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(e.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	data := buf.Bytes()
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(data)), nil
	}, tarball.WithMediaType(types.OCILayer))
}
