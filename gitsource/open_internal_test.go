package gitsource

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/olmops/olmops/internal/gittest"
)

// TestOpenSmallObjectCache opens a repository every way Open can (a bare
// one, one with a worktree, a linked worktree whose objects are in the
// main repository, and a cache clone of a URL), reads a committed file
// through each, and checks each has an objectCache, not go-git's 96 MiB
// LRU.
func TestOpenSmallObjectCache(t *testing.T) {
	gittest.RequireGit(t)
	bare := filepath.Join(t.TempDir(), "bare.git")
	gittest.Git(t, t.TempDir(), "init", "--quiet", "--bare", "--initial-branch=main", bare)
	gittest.Commit(t, bare, "main", gittest.Change{Files: map[string][]byte{"catalogs/a/catalog.yaml": []byte("schema: olm.package\nname: a\n")}})
	work := filepath.Join(t.TempDir(), "work")
	gittest.Git(t, t.TempDir(), "clone", "--quiet", bare, work)
	linked := filepath.Join(t.TempDir(), "linked")
	gittest.Git(t, work, "worktree", "add", "--quiet", "-b", "side", linked)

	open := map[string]Options{
		"bare":     {Path: bare},
		"worktree": {Path: work},
		"linked":   {Path: linked},
		"url":      {URL: "file://" + bare, CacheDir: t.TempDir()},
	}
	for name, opts := range open {
		t.Run(name, func(t *testing.T) {
			repo, err := Open(t.Context(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer repo.Close()
			head := "main"
			if name == "linked" {
				head = "side"
			}
			if got := readHeadFile(t, repo, head, "catalogs/a/catalog.yaml"); !strings.Contains(got, "name: a") {
				t.Errorf("read %q", got)
			}
			if got := objectCacheType(t, repo); got != reflect.TypeFor[*objectCache]() {
				t.Errorf("object cache is a %v, want an *objectCache", got)
			}
		})
	}
}

func readHeadFile(t *testing.T, repo *Repo, ref, name string) string {
	t.Helper()
	h, err := repo.Resolve(t.Context(), ref)
	if err != nil {
		t.Fatal(err)
	}
	snap, err := repo.Snapshot(t.Context(), h)
	if err != nil {
		t.Fatal(err)
	}
	b, err := fs.ReadFile(snap.FS(), name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// objectCacheType is the type of the object cache inside go-git's
// storage, which go-git does not export: reflection reads it.
func objectCacheType(t *testing.T, repo *Repo) reflect.Type {
	t.Helper()
	s, ok := repo.r.Storer.(*filesystem.Storage)
	if !ok {
		t.Fatalf("storage is %T", repo.r.Storer)
	}
	c := reflect.ValueOf(s).Elem().FieldByName("ObjectStorage").FieldByName("objectCache")
	if !c.IsValid() || c.IsNil() {
		t.Fatal("go-git's ObjectStorage has no objectCache field any more")
	}
	return c.Elem().Type()
}

// TestObjectCacheKeepsTreesFromBlobs fills the blob LRU past its size and
// checks a tree put before is still there, and the last blob too.
func TestObjectCacheKeepsTreesFromBlobs(t *testing.T) {
	c := newObjectCache()
	tree := memObject(plumbing.TreeObject, "tree", 1024)
	c.Put(tree)
	var last plumbing.EncodedObject
	for i := range 2 * int(blobCacheSize/cache.MiByte) {
		last = memObject(plumbing.BlobObject, fmt.Sprint("blob", i), int(cache.MiByte))
		c.Put(last)
	}
	if _, ok := c.Get(tree.Hash()); !ok {
		t.Error("reading blobs evicted a tree")
	}
	if _, ok := c.Get(last.Hash()); !ok {
		t.Error("the last blob read is not cached")
	}
	c.Clear()
	if _, ok := c.Get(tree.Hash()); ok {
		t.Error("Clear kept a tree")
	}
}

func memObject(typ plumbing.ObjectType, seed string, size int) plumbing.EncodedObject {
	o := &plumbing.MemoryObject{}
	o.SetType(typ)
	o.Write([]byte(seed + strings.Repeat("x", size-len(seed))))
	return o
}
