package gitsource_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/internal/corpus"
	"github.com/olmops/olmops/internal/gittest"
)

var treeFiles = map[string][]byte{
	"olmops.yaml":                        []byte("kind: Repository\n"),
	"catalogs/a/etcd/catalog.yaml":       []byte("schema: olm.package\nname: etcd\n"),
	"catalogs/a/etcd/.indexignore":       []byte("README.md\n"),
	"catalogs/a/etcd/README.md":          []byte("# etcd\n"),
	"catalogs/b/index.json":              []byte(`{"schema":"olm.package","name":"b"}`),
	"clusters/prod/subscriptions/a.yaml": []byte("kind: Subscription\n"),
	"empty.txt":                          {},
}

func TestSnapshotFS(t *testing.T) {
	rm := newRemote(t, treeFiles)
	snap := snapshot(t, rm.open(t), "main")
	fsys := snap.FS()

	var want []string
	for name := range treeFiles {
		want = append(want, name)
	}
	if err := fstest.TestFS(fsys, want...); err != nil {
		t.Fatal(err)
	}
	for name, data := range treeFiles {
		fi, err := fs.Stat(fsys, name)
		if err != nil {
			t.Fatalf("Stat(%s): %v", name, err)
		}
		if !fi.Mode().IsRegular() || fi.Size() != int64(len(data)) || fi.Mode().Perm() != 0o644 {
			t.Errorf("Stat(%s) = mode %v size %d, want a regular 0644 file of %d bytes", name, fi.Mode(), fi.Size(), len(data))
		}
		if _, ok := fi.Sys().(plumbing.Hash); !ok {
			t.Errorf("Stat(%s).Sys() = %T, want plumbing.Hash", name, fi.Sys())
		}
	}
	sub, err := fs.Sub(fsys, "catalogs/a")
	if err != nil {
		t.Fatal(err)
	}
	if err := fstest.TestFS(sub, "etcd/catalog.yaml", "etcd/README.md"); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.Stat(fsys, "missing/file"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat(missing/file) = %v, want ErrNotExist", err)
	}
	if _, err := fs.Stat(fsys, "olmops.yaml/x"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Stat below a file = %v, want ErrNotExist", err)
	}
	if _, err := fsys.Open("../x"); !errors.Is(err, fs.ErrInvalid) {
		t.Errorf("Open(../x) = %v, want ErrInvalid", err)
	}
}

func TestSnapshotSymlinksAndSubmodules(t *testing.T) {
	rm := newRemote(t, nil)
	head := rm.commit(t, "main", gittest.Change{
		Files: map[string][]byte{
			"catalogs/a/real/catalog.yaml": []byte("schema: olm.package\nname: real\n"),
			"secret.txt":                   []byte("outside\n"),
		},
		Symlinks: map[string]string{
			"catalogs/a/link.yaml":    "real/catalog.yaml",
			"catalogs/a/linkdir":      "real",
			"catalogs/a/up.yaml":      "../../secret.txt",
			"catalogs/a/abs.yaml":     "/etc/passwd",
			"catalogs/a/escape.yaml":  "../../../outside",
			"catalogs/a/loop.yaml":    "loop.yaml",
			"catalogs/a/dangling":     "nothing-here",
			"catalogs/a/via/dir.yaml": "../linkdir/catalog.yaml",
		},
	})
	rm.commit(t, "main", gittest.Change{Submodules: map[string]string{"catalogs/a/module": head.String()}})
	snap := snapshot(t, rm.open(t), "main")
	root := snap.FS()
	sub, err := fs.Sub(root, "catalogs/a")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		fsys    fs.FS
		path    string
		want    string // content, or "dir"
		wantErr string
	}{
		{name: "link to file", fsys: sub, path: "link.yaml", want: "schema: olm.package\nname: real\n"},
		{name: "link to folder", fsys: sub, path: "linkdir", want: "dir"},
		{name: "through linked folder", fsys: sub, path: "linkdir/catalog.yaml", want: "schema: olm.package\nname: real\n"},
		{name: "link through link", fsys: sub, path: "via/dir.yaml", want: "schema: olm.package\nname: real\n"},
		{name: "up inside the root", fsys: root, path: "catalogs/a/up.yaml", want: "outside\n"},
		{name: "up out of the sub", fsys: sub, path: "up.yaml", wantErr: "path escapes from parent"},
		{name: "absolute", fsys: root, path: "catalogs/a/abs.yaml", wantErr: "path escapes from parent"},
		{name: "out of the tree", fsys: root, path: "catalogs/a/escape.yaml", wantErr: "path escapes from parent"},
		{name: "loop", fsys: sub, path: "loop.yaml", wantErr: "too many levels of symbolic links"},
		{name: "dangling", fsys: sub, path: "dangling", wantErr: "file does not exist"},
		{name: "submodule", fsys: sub, path: "module", wantErr: "file does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fi, err := fs.Stat(tt.fsys, tt.path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Errorf("Stat(%s) = %v, want error %q", tt.path, err, tt.wantErr)
				}
				if _, err := fs.ReadFile(tt.fsys, tt.path); err == nil {
					t.Errorf("ReadFile(%s) succeeded", tt.path)
				}
				return
			}
			if err != nil {
				t.Fatalf("Stat(%s): %v", tt.path, err)
			}
			if tt.want == "dir" {
				if !fi.IsDir() {
					t.Errorf("Stat(%s) = %v, want a folder", tt.path, fi.Mode())
				}
				return
			}
			data, err := fs.ReadFile(tt.fsys, tt.path)
			if err != nil || string(data) != tt.want || fi.Size() != int64(len(tt.want)) {
				t.Errorf("ReadFile(%s) = %q, %v (size %d); want %q", tt.path, data, err, fi.Size(), tt.want)
			}
		})
	}
	entries, err := fs.ReadDir(sub, ".")
	if err != nil {
		t.Fatal(err)
	}
	types := map[string]fs.FileMode{}
	for _, e := range entries {
		types[e.Name()] = e.Type()
	}
	if _, ok := types["module"]; ok {
		t.Error("ReadDir lists the submodule")
	}
	if types["link.yaml"] != fs.ModeSymlink || types["real"] != fs.ModeDir {
		t.Errorf("ReadDir types = %v, want link.yaml a symlink and real a folder", types)
	}
}

func TestTreeHash(t *testing.T) {
	rm := newRemote(t, treeFiles)
	snap := snapshot(t, rm.open(t), "main")
	for _, dir := range []string{".", "catalogs", "catalogs/a", "catalogs/a/etcd"} {
		rev := "main:" + dir
		if dir == "." {
			rev = "main^{tree}"
		}
		want := strings.TrimSpace(gittest.Git(t, rm.dir, "rev-parse", rev))
		got, err := snap.TreeHash(dir)
		if err != nil || got.String() != want {
			t.Errorf("TreeHash(%s) = %s, %v; want %s", dir, got, err, want)
		}
	}
	for _, dir := range []string{"olmops.yaml", "missing"} {
		if _, err := snap.TreeHash(dir); err == nil {
			t.Errorf("TreeHash(%s) succeeded, want an error", dir)
		}
	}
}

// TestSnapshotLoadsCatalogs loads every upstream test catalog from a git
// tree and from disk and expects the same result.
func TestSnapshotLoadsCatalogs(t *testing.T) {
	dir := corpus.Path(t, "catalogs/upstream-testdata")
	rm := newRemote(t, gittest.DirFiles(t, dir, "catalogs"))
	snap := snapshot(t, rm.open(t), "main")
	catalogs, err := filepath.Glob(filepath.Join(dir, "*", "*"))
	if err != nil || len(catalogs) == 0 {
		t.Fatalf("no catalogs in %s: %v", dir, err)
	}
	for _, cat := range catalogs {
		rel, _ := filepath.Rel(dir, cat)
		name := "catalogs/" + filepath.ToSlash(rel)
		t.Run(name, func(t *testing.T) {
			fromDisk, diskErr := fbc.Load(t.Context(), os.DirFS(cat), fbc.Options{Prefix: name})
			sub, err := fs.Sub(snap.FS(), name)
			if err != nil {
				t.Fatal(err)
			}
			fromGit, gitErr := fbc.Load(t.Context(), sub, fbc.Options{Prefix: name})
			if errText(diskErr) != errText(gitErr) {
				t.Errorf("errors differ:\ndisk: %v\ngit:  %v", diskErr, gitErr)
			}
			// Large values refer back to their files, so compare what
			// the configs say rather than how they hold it.
			if !sameConfig(t, fromDisk, fromGit) {
				t.Errorf("configs differ: disk has %d packages, %d bundles; git %d, %d",
					len(fromDisk.Packages), len(fromDisk.Bundles), len(fromGit.Packages), len(fromGit.Bundles))
			}
			if len(fromGit.Packages)+len(fromGit.Bundles) == 0 && gitErr == nil {
				t.Error("loaded nothing")
			}
		})
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func sameConfig(t *testing.T, a, b *fbc.Config) bool {
	t.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return string(ja) == string(jb)
}
