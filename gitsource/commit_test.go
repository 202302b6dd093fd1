package gitsource_test

import (
	"errors"
	"io/fs"
	"sort"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

var baseFiles = map[string][]byte{
	"olmops.yaml":                           []byte("kind: Repository\n"),
	"catalogs/a/catalog.yaml":               []byte("schema: olm.package\nname: a\n"),
	"clusters/prod/plans/ns/etcd/old.yaml":  []byte("old\n"),
	"clusters/prod/plans/ns/etcd/keep.yaml": []byte("keep\n"),
	"clusters/prod/plans/ns/other/x.yaml":   []byte("x\n"),
}

func TestCommit(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string][]byte
		want    map[string]string // every file of the new tree
		wantErr string
	}{
		{
			name: "several files in one commit",
			files: map[string][]byte{
				"clusters/prod/plans/ns/etcd/installplan.yaml":   []byte("plan\n"),
				"clusters/prod/plans/ns/etcd/manifests/csv.yaml": []byte("csv\n"),
				"clusters/east/plans/ns/etcd/installplan.yaml":   []byte("east\n"),
				"clusters/prod/plans/ns/etcd/old.yaml":           nil,
				"a-b":                                            []byte("git sorts a-b before a/ and a.b after a/\n"),
				"a.b":                                            []byte("."),
				"a/b":                                            []byte("/"),
			},
			want: map[string]string{
				"olmops.yaml":                                    "kind: Repository\n",
				"catalogs/a/catalog.yaml":                        "schema: olm.package\nname: a\n",
				"clusters/prod/plans/ns/etcd/keep.yaml":          "keep\n",
				"clusters/prod/plans/ns/etcd/installplan.yaml":   "plan\n",
				"clusters/prod/plans/ns/etcd/manifests/csv.yaml": "csv\n",
				"clusters/prod/plans/ns/other/x.yaml":            "x\n",
				"clusters/east/plans/ns/etcd/installplan.yaml":   "east\n",
				"a-b": "git sorts a-b before a/ and a.b after a/\n",
				"a.b": ".",
				"a/b": "/",
			},
		},
		{
			name:  "delete a folder",
			files: map[string][]byte{"clusters/prod/plans": nil},
			want: map[string]string{
				"olmops.yaml":             "kind: Repository\n",
				"catalogs/a/catalog.yaml": "schema: olm.package\nname: a\n",
			},
		},
		{
			name: "replace a folder's content",
			files: map[string][]byte{
				"clusters/prod/plans/ns/etcd":          nil,
				"clusters/prod/plans/ns/etcd/new.yaml": []byte("new\n"),
			},
			want: map[string]string{
				"olmops.yaml":                          "kind: Repository\n",
				"catalogs/a/catalog.yaml":              "schema: olm.package\nname: a\n",
				"clusters/prod/plans/ns/etcd/new.yaml": "new\n",
				"clusters/prod/plans/ns/other/x.yaml":  "x\n",
			},
		},
		{name: "no change", files: map[string][]byte{"olmops.yaml": []byte("kind: Repository\n"), "missing": nil}, wantErr: "nothing to commit"},
		{name: "no files", files: nil, wantErr: "nothing to commit"},
		{name: "path escapes", files: map[string][]byte{"../x": []byte("x")}, wantErr: `invalid path "../x"`},
		{name: "absolute path", files: map[string][]byte{"/x": []byte("x")}, wantErr: `invalid path "/x"`},
		{name: "git folder", files: map[string][]byte{"a/.git/config": []byte("x")}, wantErr: ".git is reserved"},
		{name: "file and folder", files: map[string][]byte{"a": []byte("x"), "a/b": []byte("y")}, wantErr: "as a file and as a folder"},
		{name: "below a file", files: map[string][]byte{"olmops.yaml/x": []byte("y")}, wantErr: "it is a file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := newRemote(t, baseFiles)
			repo := rm.open(t)
			parent := resolve(t, repo, "main")
			h, err := repo.Commit(t.Context(), gitsource.CommitRequest{
				Parent: parent, Branch: "main", Files: tt.files, Message: "olmops: " + tt.name, Author: author,
			})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Commit error = %v, want %q", err, tt.wantErr)
				}
				if got, err := repo.Resolve(t.Context(), "refs/heads/main"); err == nil {
					t.Errorf("failed Commit moved the branch to %s", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("Commit: %v", err)
			}
			if got := resolve(t, repo, "refs/heads/main"); got != h {
				t.Errorf("branch at %s, want the new commit %s", got, h)
			}
			snap, err := repo.Snapshot(t.Context(), h)
			if err != nil {
				t.Fatal(err)
			}
			if got := readAll(t, snap.FS()); !equalFiles(got, tt.want) {
				t.Errorf("tree after commit:\n%v\nwant:\n%v", got, tt.want)
			}

			// git itself finds the commit well-formed, with one parent.
			if err := repo.Push(t.Context(), "main", false); err != nil {
				t.Fatalf("Push: %v", err)
			}
			gittest.Git(t, rm.dir, "fsck", "--strict", "--no-progress")
			parents := strings.Fields(gittest.Git(t, rm.dir, "rev-list", "--parents", "-n1", h.String()))
			if len(parents) != 2 || parents[1] != parent.String() {
				t.Errorf("rev-list --parents = %v, want one parent %s", parents, parent)
			}
			if msg := gittest.Git(t, rm.dir, "log", "-1", "--format=%an <%ae> %s", h.String()); msg != "olmops <olmops@example.com> olmops: "+tt.name+"\n" {
				t.Errorf("git log = %q", msg)
			}
		})
	}
}

func TestCommitKeepsExecutableMode(t *testing.T) {
	rm := newRemote(t, map[string][]byte{"run.sh": []byte("#!/bin/sh\n")})
	makeExecutable(t, rm, "run.sh")
	repo := rm.open(t)
	h, err := repo.Commit(t.Context(), gitsource.CommitRequest{
		Parent: resolve(t, repo, "main"), Branch: "main", Files: map[string][]byte{"run.sh": []byte("#!/bin/sh\necho hi\n")},
		Message: "edit", Author: author,
	})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := repo.Snapshot(t.Context(), h)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := fs.Stat(snap.FS(), "run.sh")
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh mode = %v, %v; want 0755", fi.Mode(), err)
	}
}

// makeExecutable commits name as executable on main with the git CLI.
func makeExecutable(t *testing.T, rm remote, name string) {
	work := t.TempDir()
	gittest.Git(t, work, "clone", "--quiet", rm.dir, ".")
	gittest.Git(t, work, "update-index", "--chmod=+x", name)
	gittest.Git(t, work, "commit", "--quiet", "-m", "chmod")
	gittest.Git(t, work, "push", "--quiet", "origin", "HEAD:main")
}

func TestCommitRootAndNewBranch(t *testing.T) {
	rm := newRemote(t, nil) // an empty repository
	repo := rm.open(t)
	root, err := repo.Commit(t.Context(), gitsource.CommitRequest{
		Branch: "main", Files: map[string][]byte{"olmops.yaml": []byte("kind: Repository\n")}, Message: "init", Author: author,
	})
	if err != nil {
		t.Fatalf("root commit: %v", err)
	}
	if err := repo.Push(t.Context(), "main", false); err != nil {
		t.Fatalf("Push: %v", err)
	}
	if got := rm.head(t, "main"); got != root {
		t.Errorf("server main = %s, want %s", got, root)
	}
	if _, err := repo.Commit(t.Context(), gitsource.CommitRequest{
		Parent: plumbing.NewHash(strings.Repeat("1", 40)), Branch: "olmops/x", Files: map[string][]byte{"a": []byte("a")}, Message: "m", Author: author,
	}); !errors.Is(err, gitsource.ErrNotFound) {
		t.Errorf("Commit on a missing parent = %v, want ErrNotFound", err)
	}
	if _, err := repo.Resolve(t.Context(), "refs/heads/olmops/x"); err == nil {
		t.Error("failed Commit created the branch")
	}
}

func readAll(t *testing.T, fsys fs.FS) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		files[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func equalFiles(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	keys := make([]string, 0, len(a))
	for k := range a {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := b[k]; !ok || v != a[k] {
			return false
		}
	}
	return true
}
