package planner

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/markdown"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/render"
)

// maxRevisionLines bounds the file list of a revision comment; the diff
// of the pull request has the rest.
const maxRevisionLines = 40

// commentRevision tells the reviewers of an open proposal, once per
// revision, what the new revision changes against the one they last saw
// at prev: the target, the hops the path gained, a bundle on the path that
// an earlier proposal for it was closed on (rejected), the RBAC rules and
// CRD versions that change, and each plan file added, changed or removed.
// The revision's marker in the comment keeps a re-run or a concurrent
// planner from saying it twice.
func (p *Planner) commentRevision(ctx context.Context, prop *gitsource.Proposal, old plan.Marker, prev plumbing.Hash, pr *plan.Proposal, now plan.Marker, existing []gitsource.Proposal) error {
	c, ok := p.forge.(gitsource.Commenter)
	if !ok || prop == nil || prop.Number <= 0 || old == now {
		return nil
	}
	tag := fmt.Sprintf("<!-- olmops:revision to=%s inputs=%s -->", now.To, now.Inputs)
	return gitsource.CommentOnce(ctx, c, prop, tag, func() (string, error) {
		before, err := p.revisionFiles(ctx, prev, pr)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString("olmops updated this proposal. Since the previous revision:\n\n")
		if old.To != now.To {
			fmt.Fprintf(&b, "- target: %s (was %s)\n", markdown.Code(now.To), markdown.Code(old.To))
		}
		for _, l := range revisionNotes(before, pr, rejectedOnPath(existing, pr)) {
			b.WriteString("- " + l + "\n")
		}
		lines := fileChanges(before, pr)
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

// rejectedOnPath maps each bundle on the main plan's path that a closed
// proposal targeted to that proposal's name: a person said no to it once.
func rejectedOnPath(existing []gitsource.Proposal, pr *plan.Proposal) map[string]string {
	out := map[string]string{}
	for _, e := range existing {
		m, ok := plan.ParseMarker(e.Body)
		if !ok || e.State != gitsource.ProposalClosed {
			continue
		}
		for _, h := range pr.Main.File.Spec.Path {
			if h.Name == m.To && out[h.Name] == "" {
				out[h.Name] = proposalName(e)
			}
		}
	}
	return out
}

// revisionFiles reads each plan's folder as the proposal branch had it at
// prev, by plan folder and path within it.
func (p *Planner) revisionFiles(ctx context.Context, prev plumbing.Hash, pr *plan.Proposal) (map[string]map[string][]byte, error) {
	snap, err := p.opts.Repo.Snapshot(ctx, prev)
	if err != nil {
		return nil, err
	}
	fsys := snap.FS()
	out := map[string]map[string][]byte{}
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
		if err != nil && !errors.Is(err, fs.ErrNotExist) && !strings.Contains(err.Error(), "not exist") {
			return nil, err
		}
		out[pl.Dir] = before
	}
	return out, nil
}

// revisionNotes says what a reviewer should look at again: hops the path
// gained, bundles on it rejected before, RBAC rules gained and lost, CRD
// versions added and removed, comparing each plan with its previous
// revision. Catalog text is shown as code.
func revisionNotes(before map[string]map[string][]byte, pr *plan.Proposal, rejected map[string]string) []string {
	var out []string
	for _, pl := range pr.Plans {
		if pl.File == nil || pl.State == plan.Remove {
			continue
		}
		prevFiles := before[pl.Dir]
		var prevPath []v1alpha1.PlanHop
		if data, ok := prevFiles[v1alpha1.InstallPlanFile]; ok {
			if ip, err := v1alpha1.LoadInstallPlan(pl.Dir+"/"+v1alpha1.InstallPlanFile, data); err == nil {
				prevPath = ip.Spec.Path
			}
		}
		for _, h := range pl.File.Spec.Path {
			if !slices.ContainsFunc(prevPath, func(o v1alpha1.PlanHop) bool { return o.Name == h.Name }) {
				out = append(out, fmt.Sprintf("new hop %s of %s (%s)", markdown.Code(h.Name), markdown.Code(pl.Name), markdown.Text(h.Edge)))
			}
			if pl.Key == pr.Main.Key && rejected[h.Name] != "" {
				out = append(out, fmt.Sprintf("⚠️ the path goes through %s, which was rejected earlier: proposal %s was closed without merging", markdown.Code(h.Name), rejected[h.Name]))
			}
		}
		out = append(out, manifestNotes(pl, prevFiles)...)
	}
	return out
}

// manifestNotes lists the RBAC and CRD changes of pl's target manifests
// against the previous revision's. Manifests that do not parse are left
// to the file list.
func manifestNotes(pl plan.Plan, prevFiles map[string][]byte) []string {
	was, err1 := plan.TargetManifests(prevFiles)
	now, err2 := plan.TargetManifests(pl.Files)
	if err1 != nil || err2 != nil {
		return nil
	}
	c := render.Compare(was, now)
	var out []string
	for _, rc := range c.RBAC {
		for _, r := range rc.Gained {
			out = append(out, fmt.Sprintf("RBAC: %s %s gains %s", markdown.Text(rc.Role.Kind), markdown.Code(rc.Role.Name), markdown.Code(r.String())))
		}
		for _, r := range rc.Lost {
			out = append(out, fmt.Sprintf("RBAC: %s %s loses %s", markdown.Text(rc.Role.Kind), markdown.Code(rc.Role.Name), markdown.Code(r.String())))
		}
	}
	for _, cc := range c.CRDs {
		var what []string
		for _, v := range cc.VersionsAdded {
			what = append(what, "+"+v)
		}
		for _, v := range cc.VersionsRemoved {
			what = append(what, "-"+v)
		}
		if cc.StorageFrom != cc.StorageTo {
			what = append(what, "storage "+cc.StorageFrom+" → "+cc.StorageTo)
		}
		what = append(what, cc.Breaks...)
		if len(what) == 0 {
			what = []string{"changed"}
		}
		out = append(out, fmt.Sprintf("CRD %s: %s", markdown.Code(cc.CRD.Name), markdown.Text(strings.Join(what, ", "))))
	}
	return out
}

// fileChanges lists the plan files that differ between the previous
// revision and this one, as "added|changed|removed `path`".
func fileChanges(before map[string]map[string][]byte, pr *plan.Proposal) []string {
	var out []string
	for _, pl := range pr.Plans {
		prevFiles := before[pl.Dir]
		for name, data := range pl.Files {
			old, had := prevFiles[name]
			switch {
			case !had:
				out = append(out, fmt.Sprintf("added `%s/%s`", pl.Dir, name))
			case !bytes.Equal(old, data):
				out = append(out, fmt.Sprintf("changed `%s/%s`", pl.Dir, name))
			}
		}
		for name := range prevFiles {
			if _, ok := pl.Files[name]; !ok {
				out = append(out, fmt.Sprintf("removed `%s/%s`", pl.Dir, name))
			}
		}
	}
	slices.Sort(out)
	return out
}
