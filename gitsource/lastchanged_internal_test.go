package gitsource

import (
	"fmt"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// TestLastChangedDepth checks that a walk cut short maps the folders it
// did not find to the oldest commit it walked.
func TestLastChangedDepth(t *testing.T) {
	dir := t.TempDir()
	if _, err := git.PlainInit(dir, true); err != nil {
		t.Fatal(err)
	}
	repo, err := Open(t.Context(), Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	sig := object.Signature{Name: "t", Email: "t@example.com"}
	var commits []plumbing.Hash
	var head plumbing.Hash
	for i := range 6 {
		files := map[string][]byte{"busy/f": []byte(fmt.Sprint(i))}
		if i == 0 {
			files["quiet/f"] = []byte("q")
		}
		head, err = repo.Commit(t.Context(), CommitRequest{Parent: head, Branch: "main", Files: files, Message: "m", Author: sig})
		if err != nil {
			t.Fatal(err)
		}
		commits = append(commits, head)
	}
	defer func(d int) { lastChangedDepth = d }(lastChangedDepth)
	tests := []struct {
		depth     int
		wantQuiet plumbing.Hash
	}{
		{depth: 10, wantQuiet: commits[0]},
		{depth: 6, wantQuiet: commits[0]},
		{depth: 3, wantQuiet: commits[3]},
		{depth: 1, wantQuiet: commits[5]},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.depth), func(t *testing.T) {
			lastChangedDepth = tt.depth
			got, err := repo.LastChanged(t.Context(), head, []string{"busy", "quiet"})
			if err != nil {
				t.Fatal(err)
			}
			if got["busy"] != head || got["quiet"] != tt.wantQuiet {
				t.Errorf("LastChanged = %v, want busy %s, quiet %s", got, head, tt.wantQuiet)
			}
		})
	}
}
