package ocitest

import (
	"archive/tar"
	"bytes"
	"io"
	"io/fs"
	"path"
	"slices"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// File is one entry of a layer, written as it is: tests build malicious
// layers with it.
type File struct {
	Name string
	// Type is a tar type flag; 0 means a regular file.
	Type byte
	Data []byte
	// Linkname is the target of a symlink or hardlink.
	Linkname string
}

// Files turns a map of slash paths to contents into regular files, with
// the folders they need before them, in a stable order.
func Files(m map[string]string) []File {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	seen := map[string]bool{}
	var out []File
	for _, n := range names {
		var dirs []string
		for d := path.Dir(n); d != "." && d != "/" && !seen[d]; d = path.Dir(d) {
			seen[d] = true
			dirs = append(dirs, d)
		}
		for _, d := range slices.Backward(dirs) {
			out = append(out, File{Name: d + "/", Type: tar.TypeDir})
		}
		out = append(out, File{Name: n, Data: []byte(m[n])})
	}
	return out
}

// FilesFromFS reads every regular file of fsys into Files, below prefix.
func FilesFromFS(t testing.TB, fsys fs.FS, prefix string) []File {
	t.Helper()
	m := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		m[path.Join(prefix, p)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return Files(m)
}

// Layer builds a gzip-compressed layer holding files in order.
func Layer(t testing.TB, files ...File) v1.Layer {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range files {
		hdr := &tar.Header{Name: f.Name, Typeflag: f.Type, Linkname: f.Linkname, Mode: 0o644, Format: tar.FormatPAX}
		switch f.Type {
		case 0, tar.TypeReg:
			hdr.Typeflag = tar.TypeReg
			hdr.Size = int64(len(f.Data))
		case tar.TypeDir:
			hdr.Mode = 0o755
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatalf("layer entry %q: %v", f.Name, err)
		}
		if _, err := tw.Write(f.Data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	l, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(data)), nil })
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// Image builds an image of layers (bottom first) with labels on its config.
func Image(t testing.TB, labels map[string]string, layers ...v1.Layer) v1.Image {
	t.Helper()
	img, err := mutate.AppendLayers(empty.Image, layers...)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	cf = cf.DeepCopy()
	cf.OS, cf.Architecture = "linux", "amd64"
	cf.Config.Labels = labels
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		t.Fatal(err)
	}
	return img
}

// CatalogImage builds an opm-style catalog image: the file-based catalog in
// fsys under /configs, labelled as opm labels it.
func CatalogImage(t testing.TB, fsys fs.FS) v1.Image {
	t.Helper()
	return Image(t, map[string]string{"operators.operatorframework.io.index.configs.v1": "/configs"},
		Layer(t, FilesFromFS(t, fsys, "configs")...))
}
