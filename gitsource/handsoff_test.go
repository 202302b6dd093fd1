package gitsource_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/gitsource"
)

// Foreign finds the commits someone else made on a proposal branch, even
// when the walk is cut short, and fails only when the cut hides whether
// there are any.
func TestForeign(t *testing.T) {
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	ctx := t.Context()
	main := resolve(t, repo, "main")
	alice := object.Signature{Name: "alice", Email: "alice@example.com", When: author.When}
	head := main
	var commits []plumbing.Hash
	for i, who := range []object.Signature{author, alice, author} {
		h, err := repo.Commit(ctx, gitsource.CommitRequest{Parent: head, Branch: "olmops/p", Author: who,
			Message: "commit " + who.Name, Files: map[string][]byte{"d/f": []byte{byte('a' + i)}}})
		if err != nil {
			t.Fatal(err)
		}
		head = h
		commits = append(commits, h)
	}
	tests := []struct {
		name    string
		limit   int
		want    []plumbing.Hash
		wantErr error
	}{
		{name: "whole branch", limit: 10, want: commits[1:2]},
		{name: "cut after the foreign commit", limit: 2, want: commits[1:2]},
		{name: "cut before it", limit: 1, wantErr: gitsource.ErrTooMany},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := repo.Foreign(ctx, main, head, author, tt.limit)
			var hashes []plumbing.Hash
			for _, c := range got {
				hashes = append(hashes, c.Hash)
			}
			if !errors.Is(err, tt.wantErr) || !slices.Equal(hashes, tt.want) {
				t.Errorf("Foreign = %v, %v; want %v, %v", hashes, err, tt.want, tt.wantErr)
			}
		})
	}
	if ours, err := repo.Foreign(ctx, commits[1], commits[2], author, 10); err != nil || len(ours) != 0 {
		t.Errorf("Foreign over olmops' own commit = %v, %v", ours, err)
	}
}

// Untouched tells whether a folder changed on the base since a commit.
func TestUntouched(t *testing.T) {
	rm := newRemote(t, baseFiles)
	repo := rm.open(t)
	ctx := t.Context()
	var since plumbing.Hash
	commit := func(parent plumbing.Hash, file string) plumbing.Hash {
		h, err := repo.Commit(ctx, gitsource.CommitRequest{Parent: parent, Branch: "main", Author: author, Message: "edit " + file, Files: map[string][]byte{file: []byte(file)}})
		if err != nil {
			t.Fatal(err)
		}
		return h
	}
	since = commit(resolve(t, repo, "main"), "d/x")
	other := commit(since, "other/x")
	if ok, err := repo.Untouched(ctx, other, since, []string{"d"}); err != nil || !ok {
		t.Errorf("after an edit elsewhere: Untouched = %v, %v; want true", ok, err)
	}
	edited := commit(other, "d/y")
	if ok, err := repo.Untouched(ctx, edited, since, []string{"d"}); err != nil || ok {
		t.Errorf("after an edit of d: Untouched = %v, %v; want false", ok, err)
	}
}
