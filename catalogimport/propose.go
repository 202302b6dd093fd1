package catalogimport

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/gitsource"
)

// importLabels mark an import's proposal.
var importLabels = []string{"olmops", "catalog-import"}

// propose puts an import where people review it instead of into a
// worktree: one commit replacing the catalog folder on the branch
// olmops/import/<catalog>, based on the remote's default branch as just
// fetched (a stale clone's local branch would make the proposal conflict
// and list every bundle as new), pushed when the repository has an origin,
// and proposed through the forge olmops.yaml names (the git-only forge
// otherwise). Merging the proposal is what moves the plans.
func propose(ctx context.Context, opts Options, next *catalog.Catalog, files map[string][]byte, sum *Summary) error {
	repo := opts.Propose.Repo
	base, head, err := remoteBase(ctx, repo, opts.Propose.Branch)
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
	sum.Base = base
	sum.diff(committedCatalog(ctx, snap.FS(), opts.Into, sum), next)
	listed, err := readOptional(snap.FS(), v1alpha1.RepositoryFile)
	if err != nil {
		return err
	}
	listed, err = register(listed, sum.Catalog, filepath.ToSlash(opts.Into))
	if err != nil {
		return err
	}
	edits := map[string][]byte{opts.Into: nil}
	if listed != nil {
		edits[v1alpha1.RepositoryFile] = listed
		sum.Registered = true
	}
	for name, data := range files {
		edits[path.Join(opts.Into, name)] = data
	}
	if opts.Propose.Automatic {
		return commitImport(ctx, repo, base, head, edits, sum, author(opts.Propose.Author), false)
	}
	branch := "olmops/import/" + sum.Catalog
	forge, err := importForge(opts, cfg)
	if err != nil {
		return err
	}
	existing, err := forge.Proposals(ctx, branch)
	if err != nil {
		return fmt.Errorf("catalog import: proposals of %s: %w", branch, err)
	}
	sign := author(opts.Propose.Author)
	current, err := repo.ProposalHead(ctx, branch, repo.HasRemote())
	if err != nil {
		return err
	}
	if !current.IsZero() && gitsource.UnderReview(existing) {
		foreign, err := repo.Foreign(ctx, head, current, sign, maxAhead)
		if err != nil {
			return err
		}
		if len(foreign) > 0 {
			return holdImport(ctx, forge, existing, branch, foreign, sum)
		}
		keep, err := importUnchanged(ctx, repo, head, current, edits)
		if err != nil {
			return err
		}
		if keep {
			sum.Changed, sum.Proposal = true, gitsource.OpenProposal(existing)
			if sum.Proposal != nil {
				return nil
			}
		}
	}
	if err := commitImport(ctx, repo, branch, head, edits, sum, sign, true); err != nil || !sum.Changed {
		return err
	}
	p, err := forge.Propose(ctx, gitsource.ProposalRequest{Head: branch, Base: base, Title: sum.Title(), Body: sum.Body(), Labels: importLabels})
	if err != nil {
		return fmt.Errorf("catalog import: propose %s: %w", branch, err)
	}
	sum.Proposal = p
	return nil
}

// importForge is the forge olmops.yaml names, or the git-only forge.
func importForge(opts Options, cfg *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
	if opts.Propose.Forge != nil {
		forge, err := opts.Propose.Forge(cfg)
		if err != nil || forge != nil {
			return forge, err
		}
	}
	return gitsource.NewGitForge(opts.Propose.Repo), nil
}

// remoteBase is the branch a proposal targets (base, or the default
// branch when empty) and the commit it starts from: with an origin, the
// remote's branch as fetched now, never the local one, which may be behind
// or hold commits the remote does not have.
func remoteBase(ctx context.Context, repo *gitsource.Repo, base string) (string, plumbing.Hash, error) {
	if base == "" {
		var err error
		if base, err = repo.DefaultBranch(ctx); err != nil {
			return "", plumbing.ZeroHash, err
		}
	}
	if !repo.HasRemote() {
		head, err := repo.Resolve(ctx, base)
		return base, head, err
	}
	if err := repo.Fetch(ctx); err != nil {
		return "", plumbing.ZeroHash, err
	}
	head, err := repo.RemoteRef(ctx, plumbing.NewBranchReferenceName(base).String())
	if err != nil {
		return "", plumbing.ZeroHash, fmt.Errorf("catalog import: the remote's branch %s: %w", base, err)
	}
	return base, head, nil
}

// committedCatalog loads the catalog folder as the base commit holds it, for
// the summary; nil when there is none. A folder that does not load counts
// as empty: the import replaces it.
func committedCatalog(ctx context.Context, fsys fs.FS, dir string, sum *Summary) *catalog.Catalog {
	sub, err := fs.Sub(fsys, dir)
	if err == nil {
		_, err = fs.Stat(sub, ".")
	}
	if err != nil {
		return nil
	}
	cfg, err := fbc.Load(ctx, sub, fbc.Options{Prefix: dir})
	if err != nil {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("previous content of %s does not load, comparing with nothing: %v", dir, err))
		return nil
	}
	return catalog.New(sum.Catalog, cfg)
}

// author is who signs the import's commit: sig, or olmops' own identity.
func author(sig object.Signature) object.Signature {
	if sig.Name == "" {
		return object.Signature{Name: "olmops", Email: "olmops@users.noreply.github.com"}
	}
	return sig
}

// readOptional reads name from fsys; nil when there is no such file.
func readOptional(fsys fs.FS, name string) ([]byte, error) {
	data, err := fs.ReadFile(fsys, name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
