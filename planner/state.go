package planner

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/subscription"
)

// catalogs loads and checks a snapshot's catalogs once per planning run,
// whatever the number of clusters reading them.
type catalogs struct {
	cache *gitsource.CatalogCache
	mu    sync.Mutex
	valid map[*catalog.Catalog]error
}

func (c *catalogs) load(ctx context.Context, snap *gitsource.Snapshot, repo *v1alpha1.RepositoryConfig) ([]*catalog.Catalog, error) {
	var out []*catalog.Catalog
	var errs []error
	for _, spec := range repo.Spec.Catalogs {
		cat, err := c.cache.Get(ctx, snap, spec.Path, spec.Name)
		if err == nil {
			err = c.validate(cat)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("catalog %s: %w", spec.Name, err))
			continue
		}
		// The cached catalog is shared: the priority, labels and
		// namespaces are this repository's.
		cp := *cat
		cp.Priority, cp.Labels, cp.Namespaces = int(spec.Priority), spec.Labels, spec.Namespaces
		out = append(out, &cp)
	}
	return out, errors.Join(errs...)
}

func (c *catalogs) validate(cat *catalog.Catalog) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err, ok := c.valid[cat]; ok {
		return err
	}
	err := cat.Validate().Err()
	c.valid[cat] = err
	return err
}

// clusterInput reads what one cluster's plans depend on from a snapshot.
func (p *Planner) clusterInput(ctx context.Context, snap *gitsource.Snapshot, repo *v1alpha1.RepositoryConfig, cluster v1alpha1.Cluster) (plan.Input, error) {
	fsys := snap.FS()
	in := plan.Input{Cluster: cluster, Repo: fsys, Bundles: p.sources(fsys, repo), Version: p.opts.Version, Policy: repo.Spec.Policy}
	if err := in.Cluster.ReadFacts(fsys); err != nil {
		return in, err
	}
	objs, err := subscription.LoadObjects(ctx, fsys, path.Join(cluster.Path, "subscriptions"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return in, err
	}
	if objs == nil {
		objs = &subscription.Objects{}
	}
	in.Objects = objs
	if in.Catalogs, err = p.catalogs.load(ctx, snap, repo); err != nil {
		return in, err
	}
	if in.Committed, err = readPlans(snap, cluster, p.opts.Plans); err != nil {
		return in, err
	}
	in.Promotion, err = p.promotion(ctx, repo, cluster)
	return in, err
}

// readPlans reads every committed plan folder of cluster, through cache
// (nil: none) by each folder's tree hash.
func readPlans(snap *gitsource.Snapshot, cluster v1alpha1.Cluster, cache *PlanCache) (map[plan.Key]*plan.Committed, error) {
	fsys := snap.FS()
	keys, err := plan.Keys(fsys, cluster)
	if err != nil {
		return nil, err
	}
	out := map[plan.Key]*plan.Committed{}
	var errs []error
	for _, k := range keys {
		dir := plan.Dir(cluster, k)
		tree, err := snap.TreeHash(dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if c, ok := cache.get(tree, dir); ok {
			out[k] = c
			continue
		}
		c, err := readPlan(fsys, dir)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cache.add(tree, dir, c)
		out[k] = c
	}
	return out, errors.Join(errs...)
}

func readPlan(fsys fs.FS, dir string) (*plan.Committed, error) {
	c := &plan.Committed{Files: map[string][]byte{}}
	err := fs.WalkDir(fsys, dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		data, err := fs.ReadFile(fsys, p)
		c.Files[p[len(dir)+1:]] = data
		return err
	})
	if err != nil {
		return nil, err
	}
	file := path.Join(dir, v1alpha1.InstallPlanFile)
	data, ok := c.Files[v1alpha1.InstallPlanFile]
	if !ok {
		return nil, fmt.Errorf("%s: missing: a plan folder needs its installplan.yaml (delete the folder to re-plan)", file)
	}
	if c.Plan, err = v1alpha1.LoadInstallPlan(file, data); err != nil {
		return nil, err
	}
	return c, nil
}

// sources returns the bundle sources of a snapshot's tree, one per tree so
// a bundle installed on many clusters is read once.
func (p *Planner) sources(fsys fs.FS, repo *v1alpha1.RepositoryConfig) *plan.Sources {
	p.srcMu.Lock() // clusters are planned ahead on other goroutines
	defer p.srcMu.Unlock()
	if p.src != nil && p.srcFS == fsys {
		return p.src
	}
	paths := map[string]string{}
	for _, c := range repo.Spec.Catalogs {
		paths[c.Name] = c.BundlesPath
	}
	p.srcFS, p.src = fsys, &plan.Sources{Repo: fsys, BundlesPaths: paths, Images: p.opts.Images, Pinner: p.opts.Pinner}
	return p.src
}
