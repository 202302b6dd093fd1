package oci

import (
	"archive/tar"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzUnpack feeds arbitrary tar streams to the unpacker: it must never
// panic, never write outside its root, and leave no link that leads out.
func FuzzUnpack(f *testing.F) {
	for _, entries := range [][]tar.Header{
		{{Name: "manifests/", Typeflag: tar.TypeDir}, {Name: "manifests/a.yaml", Typeflag: tar.TypeReg}},
		{{Name: "a", Typeflag: tar.TypeSymlink, Linkname: "../../x"}},
		{{Name: "a", Typeflag: tar.TypeSymlink, Linkname: "."}, {Name: "a/b", Typeflag: tar.TypeSymlink, Linkname: "../x"}},
		{{Name: "a/b", Typeflag: tar.TypeReg}, {Name: "a/.wh..wh..opq", Typeflag: tar.TypeReg}, {Name: "c", Typeflag: tar.TypeLink, Linkname: "a/b"}},
	} {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		for _, h := range entries {
			if err := tw.WriteHeader(&h); err != nil {
				f.Fatal(err)
			}
		}
		tw.Close()
		f.Add(buf.Bytes(), "")
		f.Add(buf.Bytes(), "a")
	}
	f.Fuzz(func(t *testing.T, data []byte, prefix string) {
		if strings.Contains(prefix, "..") || strings.HasPrefix(prefix, "/") {
			return
		}
		outer := t.TempDir()
		dir := filepath.Join(outer, "root")
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		root, err := os.OpenRoot(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer root.Close()
		u := newUnpacker(root, prefix, 1<<20, 100)
		_ = u.layer(t.Context(), bytes.NewReader(data))
		checkContained(t, outer, dir)
	})
}

// checkContained fails if anything appeared beside dir, or a link in dir
// resolves outside it.
func checkContained(t *testing.T, outer, dir string) {
	entries, err := os.ReadDir(outer)
	if err != nil || len(entries) != 1 {
		t.Fatalf("unpacking wrote beside its root: %v %v", entries, err)
	}
	realDir, _ := filepath.EvalSymlinks(dir)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.Type()&fs.ModeSymlink == 0 {
			return err
		}
		target, err := filepath.EvalSymlinks(p)
		if err != nil {
			return nil // dangling inside the root is harmless
		}
		if target != realDir && !strings.HasPrefix(target, realDir+string(filepath.Separator)) {
			t.Errorf("link %s leads to %s, outside %s", p, target, realDir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
