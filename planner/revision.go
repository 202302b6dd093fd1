package planner

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
)

// maxRevisionLines bounds the file list of a revision comment; the diff
// of the pull request has the rest.
const maxRevisionLines = 40

// commentRevision tells the reviewers of an open proposal, once per
// revision, what the new revision changes against the one they last saw
// at prev: the target, and each plan file added, changed or removed
// (hops/NN-<bundle>/ folders are new hops; clusterrole-*, role-* and
// customresourcedefinition-* files are RBAC and CRD changes). The
// revision's marker in the comment keeps a re-run or a concurrent planner
// from saying it twice.
func (p *Planner) commentRevision(ctx context.Context, prop *gitsource.Proposal, old plan.Marker, prev plumbing.Hash, pr *plan.Proposal, now plan.Marker) error {
	c, ok := p.forge.(gitsource.Commenter)
	if !ok || prop == nil || prop.Number <= 0 || old == now {
		return nil
	}
	tag := fmt.Sprintf("<!-- olmops:revision to=%s inputs=%s -->", now.To, now.Inputs)
	return commentOnce(ctx, c, prop, tag, func() (string, error) {
		lines, err := p.revisionChanges(ctx, prev, pr)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString("olmops updated this proposal. Since the previous revision:\n\n")
		if old.To != now.To {
			fmt.Fprintf(&b, "- target: `%s` (was `%s`)\n", now.To, old.To)
		}
		if len(lines) == 0 {
			b.WriteString("- no plan file changed (only the inputs it was planned from)\n")
		}
		for i, l := range lines {
			if i == maxRevisionLines {
				fmt.Fprintf(&b, "- … and %d more: see the diff\n", len(lines)-i)
				break
			}
			b.WriteString("- " + l + "\n")
		}
		b.WriteString("\n" + tag + "\n")
		return b.String(), nil
	})
}

// revisionChanges lists the plan files that differ between the proposal
// branch at prev and the new revision, as "added|changed|removed `path`".
func (p *Planner) revisionChanges(ctx context.Context, prev plumbing.Hash, pr *plan.Proposal) ([]string, error) {
	snap, err := p.opts.Repo.Snapshot(ctx, prev)
	if err != nil {
		return nil, err
	}
	fsys := snap.FS()
	var out []string
	for _, pl := range pr.Plans {
		before := map[string][]byte{}
		err := fs.WalkDir(fsys, pl.Dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := fs.ReadFile(fsys, path)
			before[strings.TrimPrefix(path, pl.Dir+"/")] = data
			return err
		})
		if err != nil && !strings.Contains(err.Error(), "not exist") {
			return nil, err
		}
		for name, data := range pl.Files {
			old, had := before[name]
			switch {
			case !had:
				out = append(out, fmt.Sprintf("added `%s/%s`", pl.Dir, name))
			case !bytes.Equal(old, data):
				out = append(out, fmt.Sprintf("changed `%s/%s`", pl.Dir, name))
			}
		}
		for name := range before {
			if _, ok := pl.Files[name]; !ok {
				out = append(out, fmt.Sprintf("removed `%s/%s`", pl.Dir, name))
			}
		}
	}
	slices.Sort(out)
	return out, nil
}
