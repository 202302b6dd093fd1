package review

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-logr/logr"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/planner"
)

// ErrRevision marks a base or head that names no commit.
var ErrRevision = errors.New("no such revision")

// RunOptions say what Run reviews.
type RunOptions struct {
	Options
	// Base and Head are revisions of the repository: branches, tags,
	// hashes.
	Base, Head string
	// Plans is the scope of the plan check; "" means PlansChanged.
	Plans PlanScope
	// Version is olmops' version, as the planner writes it in plans.
	Version string
	// Cache keeps loaded catalogs; nil uses a fresh one. The base and
	// head share it, so a catalog the pull request leaves alone loads once.
	Cache *gitsource.CatalogCache
}

// Run reviews two commits of repo: it compares them and runs the
// planner's check of the head on the clusters opts.Plans selects. A
// revision that names no commit is an ErrRevision.
func Run(ctx context.Context, repo *gitsource.Repo, opts RunOptions) (*Report, error) {
	if opts.Cache == nil {
		opts.Cache = gitsource.NewCatalogCache(0)
	}
	if opts.Plans == "" {
		opts.Plans = PlansChanged
	}
	if opts.Branch == "" {
		// The planner needs a branch for olmops.yaml's defaults; CI
		// checks out a detached HEAD.
		if b, err := repo.DefaultBranch(ctx); err == nil {
			opts.Branch = b
		} else {
			opts.Branch = "main"
		}
	}
	base, err := tree(ctx, repo, opts.Base, opts.Cache)
	if err != nil {
		return nil, err
	}
	head, err := tree(ctx, repo, opts.Head, opts.Cache)
	if err != nil {
		return nil, err
	}
	r, err := Compare(ctx, base, head, opts.Options)
	if err != nil {
		return nil, err
	}
	clusters, why := r.PlanClusters(opts.Plans)
	if why != "" {
		r.Notes = append(r.Notes, why)
	}
	if len(clusters) == 0 {
		return r, nil
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("checking plans", "clusters", clusters)
	check := func(rev string, clusters []string) (*planner.Report, error) {
		return planner.New(planner.Options{Repo: repo, Check: true, Ref: rev, Branch: opts.Branch, Clusters: clusters, Version: opts.Version, Cache: opts.Cache}).Run(ctx)
	}
	hr, err := check(head.Commit.Hash, clusters)
	if err != nil {
		return nil, fmt.Errorf("plan check of the head: %w", err)
	}
	var br *planner.Report
	if again := r.recheckAtBase(hr); len(again) > 0 {
		// Only to tell what the base had already from what is new.
		if br, err = check(base.Commit.Hash, again); err != nil {
			br = nil
		}
	}
	r.AddPlanCheck(hr, br)
	return r, nil
}

// recheckAtBase names the clusters the base has too whose check at the
// head found something: a stale plan, or no plan at all.
func (r *Report) recheckAtBase(hr *planner.Report) []string {
	var out []string
	for _, c := range hr.Clusters {
		found := c.Err != nil || slices.ContainsFunc(c.Plans, func(p planner.PlanReport) bool { return p.Action == planner.ActionStale })
		if found && r.base.hasCluster(c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}

func tree(ctx context.Context, repo *gitsource.Repo, rev string, cache *gitsource.CatalogCache) (Tree, error) {
	h, err := repo.Resolve(ctx, rev)
	if err != nil {
		if ctx.Err() != nil {
			return Tree{}, ctx.Err()
		}
		return Tree{}, fmt.Errorf("%w: %q: %v", ErrRevision, rev, err)
	}
	snap, err := repo.Snapshot(ctx, h)
	if err != nil {
		return Tree{}, err
	}
	return Tree{
		Commit: Commit{Rev: rev, Hash: h.String()},
		FS:     snap.FS(),
		Catalog: func(ctx context.Context, dir, name string) (*catalog.Catalog, error) {
			return cache.Get(ctx, snap, dir, name)
		},
	}, nil
}
