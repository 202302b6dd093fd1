package gitsource

import (
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage/filesystem"

	"github.com/olmops/olmops/internal/gittest"
)

// The objects read once for a held index are the loose and the packed
// ones alike; an object neither has is missing.
func TestPresentSeesLooseAndPackedObjects(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--initial-branch=main")
	gittest.Git(t, dir, "commit", "--quiet", "--allow-empty", "-m", "packed")
	gittest.Git(t, dir, "gc", "--quiet")
	gittest.Git(t, dir, "commit", "--quiet", "--allow-empty", "-m", "loose")
	packed := plumbing.NewHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main~1")))
	loose := plumbing.NewHash(strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main")))
	repo, err := Open(t.Context(), Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	p, err := readPresent(repo.r.Storer.(*filesystem.Storage))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.packs) != 1 || len(p.loose) == 0 {
		t.Fatalf("read %d packs and %d loose objects, want 1 pack and the loose commit", len(p.packs), len(p.loose))
	}
	for _, tc := range []struct {
		name string
		h    plumbing.Hash
		want bool
	}{
		{"packed", packed, true},
		{"loose", loose, true},
		{"missing", plumbing.NewHash(strings.Repeat("ab", 20)), false},
	} {
		if got := p.has(tc.h); got != tc.want {
			t.Errorf("%s: has = %t, want %t", tc.name, got, tc.want)
		}
	}
}
