package catalogimport

import (
	"context"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/gitsource"
)

// commitImport commits an Automatic import on base itself, on top of the
// remote's head as just fetched, and pushes it without force: a branch
// that moved in between, or that refuses direct pushes, fails the import
// rather than losing anyone's commit.
func commitImport(ctx context.Context, repo *gitsource.Repo, base string, head plumbing.Hash, edits map[string][]byte, sum *Summary, sign object.Signature) error {
	_, err := repo.Commit(ctx, gitsource.CommitRequest{
		Parent: head, Branch: base, Files: edits,
		Message: sum.Title() + "\n\n" + sum.Body(),
		Author:  sign,
	})
	if errors.Is(err, gitsource.ErrNoChange) {
		sum.Changed = false
		return nil
	}
	if err != nil {
		return err
	}
	sum.Changed = true
	if repo.HasRemote() {
		return repo.Push(ctx, base, false)
	}
	return nil
}
