package gitsource_test

import (
	"errors"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// PushBranches sends every branch in one push, forced only under
// olmops/: one branch it may not force refuses the whole push.
func TestPushBranches(t *testing.T) {
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	ctx := t.Context()
	branches := []string{"olmops/c1/ns/a", "olmops/c2/ns/a", "main"}
	want := map[string]plumbing.Hash{}
	for _, b := range branches {
		h, err := repo.Commit(ctx, gitsource.CommitRequest{
			Parent: resolve(t, repo, "main"), Branch: b, Message: "olmops: plan", Author: author,
			Files: map[string][]byte{"clusters/" + b + "/installplan.yaml": []byte(b)},
		})
		if err != nil {
			t.Fatal(err)
		}
		want[b] = h
	}
	if err := repo.PushBranches(ctx, branches, true); !errors.Is(err, gitsource.ErrForceRefused) {
		t.Fatalf("force PushBranches with main = %v, want %v", err, gitsource.ErrForceRefused)
	}
	if refs := gittest.Git(t, rm.dir, "for-each-ref", "refs/heads/olmops"); refs != "" {
		t.Fatalf("a refused PushBranches pushed:\n%s", refs)
	}
	if err := repo.PushBranches(ctx, branches[:2], true); err != nil {
		t.Fatalf("PushBranches: %v", err)
	}
	for _, b := range branches[:2] {
		if got := rm.head(t, b); got != want[b] {
			t.Errorf("server %s = %s, want %s", b, got, want[b])
		}
	}
	if err := repo.PushBranches(ctx, nil, true); err != nil {
		t.Errorf("PushBranches of nothing = %v", err)
	}
	if err := repo.PushBranches(ctx, branches[:2], true); err != nil {
		t.Errorf("PushBranches again = %v, want nil (up to date)", err)
	}
	if err := repo.PushBranches(ctx, []string{"main"}, false); err != nil || rm.head(t, "main") != want["main"] {
		t.Errorf("PushBranches(main) = %v, server main %s, want %s", err, rm.head(t, "main"), want["main"])
	}
}
