package catalogimport

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
)

// importLabels mark an import's proposal.
var importLabels = []string{"olmops", "catalog-import"}

// proposeImport puts an import where people review it instead of into the
// worktree: one commit replacing the catalog folder on the branch
// olmops/import/<catalog>, based on the default branch, pushed when the
// repository has an origin, and proposed through the forge olmops.yaml
// names (the git-only forge otherwise). The proposal is what moves the
// plans: merging it is what the next `olmops plan` sees.
func propose(ctx context.Context, opts Options, files map[string][]byte, sum *Summary) error {
	repo := opts.Propose.Repo
	base, err := repo.DefaultBranch(ctx)
	if err != nil {
		return err
	}
	head, err := repo.Resolve(ctx, base)
	if err != nil {
		return err
	}
	snap, err := repo.Snapshot(ctx, head)
	if err != nil {
		return err
	}
	cfg, err := v1alpha1.ReadRepository(snap.FS(), base)
	if err != nil {
		return err
	}
	edits := map[string][]byte{opts.Into: nil}
	for name, data := range files {
		edits[path.Join(opts.Into, name)] = data
	}
	branch := "olmops/import/" + sum.Catalog
	_, err = repo.Commit(ctx, gitsource.CommitRequest{
		Parent: head, Branch: branch, Files: edits,
		Message: sum.Title() + "\n\n" + sum.Body(),
		Author:  author(opts.Propose.Author),
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
		if err := repo.Push(ctx, branch, true); err != nil {
			return err
		}
	}
	var forge gitsource.Forge
	if opts.Propose.Forge != nil {
		if forge, err = opts.Propose.Forge(cfg); err != nil {
			return err
		}
	}
	if forge == nil {
		forge = gitsource.NewGitForge(repo)
	}
	p, err := forge.Propose(ctx, gitsource.ProposalRequest{Head: branch, Base: base, Title: sum.Title(), Body: sum.Body(), Labels: importLabels})
	if err != nil {
		return fmt.Errorf("catalog import: propose %s: %w", branch, err)
	}
	sum.Proposal = p
	return nil
}

// author is who signs the import's commit: sig, or olmops' own identity.
func author(sig object.Signature) object.Signature {
	if sig.Name == "" {
		return object.Signature{Name: "olmops", Email: "olmops@users.noreply.github.com"}
	}
	return sig
}
