package catalogimport

import (
	"context"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/gitsource"
)

// commitImport commits the import's edits on branch, on top of head, and
// pushes it; sum.Changed says whether there was anything to commit. An
// Automatic import commits on the base branch itself, on top of the
// remote's head as just fetched, without force: a branch that moved in
// between, or that refuses direct pushes, fails the import rather than
// losing anyone's commit. A proposal branch is olmops's own (a foreign
// commit on it holds the import before this), so it is force-pushed.
func commitImport(ctx context.Context, repo *gitsource.Repo, branch string, head plumbing.Hash, edits map[string][]byte, sum *Summary, sign object.Signature, force bool) error {
	_, err := repo.Commit(ctx, gitsource.CommitRequest{
		Parent: head, Branch: branch, Files: edits,
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
		return repo.Push(ctx, branch, force)
	}
	return nil
}
