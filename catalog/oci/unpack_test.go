package oci_test

import (
	"archive/tar"
	"errors"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
)

func TestUnsafeLayers(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	manifest := ocitest.File{Name: "manifests/csv.yaml", Data: []byte("kind: ClusterServiceVersion\n")}
	many := dirs("manifests")
	for i := range 20 {
		many = append(many, ocitest.File{Name: "manifests/" + strconv.Itoa(i) + ".yaml"})
	}
	tests := []struct {
		name   string
		files  []ocitest.File
		opts   oci.Options
		reason error
		msg    string
	}{
		{"dot-dot path", []ocitest.File{{Name: "manifests/../../evil"}}, oci.Options{}, oci.ErrUnsafe, "has a .. path"},
		{"absolute path", []ocitest.File{{Name: "/etc/evil"}}, oci.Options{}, oci.ErrUnsafe, "has an absolute path"},
		{"symlink escape", append(dirs("manifests"), ocitest.File{Name: "manifests/passwd", Type: tar.TypeSymlink, Linkname: "../../etc/passwd"}), oci.Options{}, oci.ErrUnsafe, "symlink out of the image root"},
		{"hardlink escape", append(dirs("manifests"), ocitest.File{Name: "manifests/passwd", Type: tar.TypeLink, Linkname: "../etc/passwd"}), oci.Options{}, oci.ErrUnsafe, "hardlink out of the image root"},
		{"hardlink to nothing", append(dirs("manifests"), ocitest.File{Name: "manifests/passwd", Type: tar.TypeLink, Linkname: "etc/passwd"}), oci.Options{}, oci.ErrUnsafe, "hardlink to no file"},
		{"write through symlink", append(dirs("manifests"), ocitest.File{Name: "escape", Type: tar.TypeSymlink, Linkname: "manifests"}, ocitest.File{Name: "escape/x"}), oci.Options{}, oci.ErrUnsafe, "below a symlink"},
		{"device file", append(dirs("manifests"), ocitest.File{Name: "manifests/null", Type: tar.TypeChar}), oci.Options{}, oci.ErrUnsafe, "device file"},
		{"too many files", many, oci.Options{MaxFiles: 10}, oci.ErrTooLarge, "number of files"},
		{"too big unpacked", []ocitest.File{manifest, {Name: "manifests/big", Data: make([]byte, 64<<10)}}, oci.Options{MaxImageBytes: 32 << 10}, oci.ErrTooLarge, "more than 32768 bytes uncompressed"},
		{"too big compressed", []ocitest.File{manifest, {Name: "manifests/big", Data: noise(64 << 10)}}, oci.Options{MaxImageBytes: 32 << 10}, oci.ErrTooLarge, "more than the 32768 allowed"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ref := reg.Push(t, reg.Ref("olmops/evil:"+strconv.Itoa(i)), ocitest.Image(t, nil, ocitest.Layer(t, tt.files...)))
			tt.opts.CacheDir = t.TempDir()
			_, err := newPuller(t, tt.opts).Bundle(t.Context(), ref)
			if !errors.Is(err, tt.reason) || !strings.Contains(err.Error(), tt.msg) || !strings.HasPrefix(err.Error(), "image "+ref+": ") {
				t.Errorf("error = %v, want %v saying %q and naming the image", err, tt.reason, tt.msg)
			}
			if left := cacheEntries(t, tt.opts.CacheDir); len(left) > 0 {
				t.Errorf("cache holds %v after a refused pull", left)
			}
		})
	}
}

// noise is incompressible data.
func noise(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{1}).Read(b)
	return b
}

func TestLayers(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	lower := ocitest.Layer(t, ocitest.Files(map[string]string{
		"manifests/a.yaml":          "a",
		"manifests/b.yaml":          "b",
		"manifests/old/x.yaml":      "x",
		"metadata/annotations.yaml": "annotations: {}\n",
		"tests/scorecard.yaml":      "s",
		"replaced":                  "file in the lower layer",
	})...)
	upper := ocitest.Layer(t,
		ocitest.File{Name: "manifests/.wh.a.yaml"},
		ocitest.File{Name: "manifests/old/y.yaml", Data: []byte("y")},
		ocitest.File{Name: "manifests/old/.wh..wh..opq"}, // after y: y stays, x goes
		ocitest.File{Name: ".wh.tests"},
		ocitest.File{Name: "replaced/", Type: tar.TypeDir},
		ocitest.File{Name: "manifests/link.yaml", Type: tar.TypeSymlink, Linkname: "../metadata/annotations.yaml"},
		ocitest.File{Name: "manifests/abs.yaml", Type: tar.TypeSymlink, Linkname: "/manifests/b.yaml"},
		ocitest.File{Name: "manifests/hard.yaml", Type: tar.TypeLink, Linkname: "manifests/b.yaml"},
	)
	ref := reg.Push(t, reg.Ref("olmops/layers:v1"), ocitest.Image(t, nil, lower, upper))
	img, err := newPuller(t, oci.Options{}).Bundle(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	err = fs.WalkDir(img.FS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, rerr := fs.ReadFile(img.FS, p)
			got = append(got, p+"="+string(data))
			err = rerr
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"manifests/abs.yaml=b",
		"manifests/b.yaml=b",
		"manifests/hard.yaml=b",
		"manifests/link.yaml=annotations: {}\n",
		"manifests/old/y.yaml=y",
		"metadata/annotations.yaml=annotations: {}\n",
	}
	if !slices.Equal(got, want) {
		t.Errorf("unpacked:\n%q\nwant:\n%q", got, want)
	}
	if fi, err := os.Lstat(filepath.Join(img.Dir, "replaced")); err != nil || !fi.IsDir() {
		t.Errorf("replaced: %v, %v; want the upper layer's folder", fi, err)
	}
	if target, err := os.Readlink(filepath.Join(img.Dir, "manifests/abs.yaml")); err != nil || target != "b.yaml" {
		t.Errorf("absolute symlink on disk points to %q (%v), want b.yaml relative", target, err)
	}
}
