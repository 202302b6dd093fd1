package catalogimport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
)

// maxAhead bounds the walk over a proposal branch's commits.
const maxAhead = 100

// handsOffMarker ends the one comment an import leaves on a proposal
// whose branch someone else committed to.
const handsOffMarker = "<!-- olmops:import-hands-off -->"

// holdImport leaves a proposal branch holding commits olmops did not make
// as it is (gitsource's hands-off rule): the summary says so, and the open
// proposal gets one comment naming them, whichever run says it first.
func holdImport(ctx context.Context, forge gitsource.Forge, existing []gitsource.Proposal, branch string, foreign []gitsource.CommitInfo, sum *Summary) error {
	names := make([]string, len(foreign))
	for i, c := range foreign {
		names[i] = c.Short()
	}
	list := strings.Join(names, ", ")
	sum.Held = fmt.Sprintf("branch %s has commits olmops did not make (%s): olmops leaves it alone until they are gone or the proposal is closed", branch, list)
	sum.Proposal = gitsource.OpenProposal(existing)
	c, ok := forge.(gitsource.Commenter)
	if !ok || sum.Proposal == nil {
		return nil
	}
	return gitsource.CommentOnce(ctx, c, sum.Proposal, handsOffMarker, func() (string, error) {
		return "olmops will not update this import: its branch has commits olmops did not make (" + list +
			"). Remove them to let olmops update it again, or close it.\n\n" + handsOffMarker, nil
	})
}

// importUnchanged tells whether current, an olmops-only proposal branch
// of one commit, already holds edits and still merges into base: none of
// the folders and files it writes changed on base since it was based.
// Rewriting it then would only reset its reviews and checks.
func importUnchanged(ctx context.Context, repo *gitsource.Repo, base, current plumbing.Hash, edits map[string][]byte) (bool, error) {
	info, err := repo.CommitInfo(ctx, current)
	if err != nil || len(info.Parents) != 1 {
		return false, err
	}
	snap, err := repo.Snapshot(ctx, current)
	if err != nil {
		return false, err
	}
	same, err := holds(snap.FS(), edits)
	if err != nil || !same {
		return false, err
	}
	if _, registers := edits[v1alpha1.RepositoryFile]; !registers {
		// olmops.yaml is the one file an import writes besides its folder: an
		// earlier revision's registration that base no longer needs would conflict.
		if same, err = sameFile(ctx, repo, base, snap.FS(), v1alpha1.RepositoryFile); err != nil || !same {
			return false, err
		}
	}
	return repo.Untouched(ctx, base, info.Parents[0], folders(edits))
}

// sameFile tells whether name reads the same at commit as in fsys.
func sameFile(ctx context.Context, repo *gitsource.Repo, commit plumbing.Hash, fsys fs.FS, name string) (bool, error) {
	snap, err := repo.Snapshot(ctx, commit)
	if err != nil {
		return false, err
	}
	a, err := readOptional(snap.FS(), name)
	if err != nil {
		return false, err
	}
	b, err := readOptional(fsys, name)
	return bytes.Equal(a, b), err
}

// holds tells whether fsys is what edits write: a nil edit is a folder
// replaced by the edits below it (or deleted), any other a file's content.
func holds(fsys fs.FS, edits map[string][]byte) (bool, error) {
	for p, data := range edits {
		if data == nil {
			got := map[string][]byte{}
			err := fs.WalkDir(fsys, p, func(name string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				got[name], err = fs.ReadFile(fsys, name)
				return err
			})
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				return false, err
			}
			for name := range got {
				if _, ok := edits[name]; !ok {
					return false, nil
				}
			}
			continue
		}
		got, err := fs.ReadFile(fsys, p)
		if errors.Is(err, fs.ErrNotExist) || err == nil && !bytes.Equal(got, data) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
	return true, nil
}

// folders are the folders edits replace (their nil entries).
func folders(edits map[string][]byte) []string {
	var out []string
	for p, data := range edits {
		if data == nil {
			out = append(out, path.Clean(p))
		}
	}
	return out
}
