package review

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/subscription"
)

// Tree is one side of a review: the files of a commit.
type Tree struct {
	Commit Commit
	// FS reads the commit's files, paths relative to the repository root.
	FS fs.FS
	// Catalog loads the catalog name in the folder dir of FS, positions
	// relative to the root; nil decodes it from FS. A cache keyed by
	// content (gitsource.CatalogCache) makes an unchanged catalog cost
	// nothing on the second side, and lets Compare see it is unchanged.
	Catalog func(ctx context.Context, dir, name string) (*catalog.Catalog, error)
}

// side is what one tree holds, loaded leniently: everything that does
// not load is a problem, and the rest is still read.
type side struct {
	tree Tree
	// configured is false when olmops.yaml does not load.
	configured bool
	// catalogSpecs and clusterSpecs are olmops.yaml's, or when it does not
	// load, the other side's.
	catalogSpecs []v1alpha1.Catalog
	clusterSpecs []v1alpha1.Cluster
	catalogs     map[string]*catalog.Catalog // by name; absent when it does not load
	// ordered are the loaded catalogs with the repository's priorities.
	ordered  []*catalog.Catalog
	broken   []string // catalogs that do not load
	clusters []*clusterState
	problems []Problem
	// onAutomatic is olmops.yaml's escalation policy for Automatic
	// subscriptions, "" when it does not load.
	onAutomatic v1alpha1.EscalationAction
}

// clusterState is one cluster's files.
type clusterState struct {
	cluster   v1alpha1.Cluster
	objects   *subscription.Objects
	committed map[plan.Key]*v1alpha1.InstallPlan
	// broken: its files do not load, so it is not resolved.
	broken bool
}

// load reads a tree. When its olmops.yaml does not load, the catalogs and
// clusters of other's (the other side's) are read instead, so that their
// problems are still found. Only a cancelled ctx is an error.
func (l *loader) load(ctx context.Context, t Tree, branch string, other *side) (*side, error) {
	s := &side{tree: t, catalogs: map[string]*catalog.Catalog{}}
	repo, err := v1alpha1.ReadRepository(t.FS, branch)
	switch {
	case err == nil:
		s.configured, s.catalogSpecs, s.clusterSpecs = true, repo.Spec.Catalogs, repo.Spec.Clusters
		s.onAutomatic = repo.Spec.Policy.Escalations.OnAutomatic
	case other != nil && other.configured:
		s.catalogSpecs, s.clusterSpecs = other.catalogSpecs, other.clusterSpecs
		fallthrough
	default:
		s.problems = append(s.problems, problemsOf(v1alpha1.RepositoryFile, v1alpha1.RepositoryFile, err)...)
	}
	for _, spec := range s.catalogSpecs {
		if err := l.loadCatalog(ctx, s, spec); err != nil {
			return nil, err
		}
	}
	for _, c := range s.clusterSpecs {
		s.clusters = append(s.clusters, l.loadCluster(ctx, s, c))
	}
	return s, ctx.Err()
}

func (l *loader) loadCatalog(ctx context.Context, s *side, spec v1alpha1.Catalog) error {
	source := "catalog " + spec.Name
	load := s.tree.Catalog
	if load == nil {
		load = func(ctx context.Context, dir, name string) (*catalog.Catalog, error) {
			return loadFS(ctx, s.tree.FS, dir, name)
		}
	}
	cat, err := load(ctx, spec.Path, spec.Name)
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		s.broken = append(s.broken, spec.Name)
		s.problems = append(s.problems, catalogProblems(source, spec.Path, catalog.AsProblems(err))...)
		return nil
	}
	s.problems = append(s.problems, catalogProblems(source, spec.Path, l.validate(cat))...)
	for _, p := range catalogProblems(source, spec.Path, l.warnings(cat)) {
		p.Warning = true
		s.problems = append(s.problems, p)
	}
	// The loaded catalog may be shared: the priority, labels and
	// namespaces are this side's.
	cp := *cat
	cp.Priority, cp.Labels, cp.Namespaces = int(spec.Priority), spec.Labels, spec.Namespaces
	s.catalogs[spec.Name] = cat
	s.ordered = append(s.ordered, &cp)
	return nil
}

// loadFS decodes a catalog straight from a tree.
func loadFS(ctx context.Context, fsys fs.FS, dir, name string) (*catalog.Catalog, error) {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		return nil, err
	}
	if _, err := fs.Stat(sub, "."); err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	cfg, err := fbc.Load(ctx, sub, fbc.Options{Prefix: dir})
	if err != nil {
		return nil, err
	}
	return catalog.New(name, cfg), nil
}

func catalogProblems(source, dir string, ps catalog.Problems) []Problem {
	out := make([]Problem, 0, len(ps))
	for _, p := range ps {
		pr := Problem{Source: source, Pos: posOf(p.Pos), Package: p.Package, Channel: p.Channel, Bundle: p.Bundle, Message: p.Message}
		if pr.Pos.File == "" {
			pr.Pos.File = dir
		}
		if pr.Message == "" && p.Err != nil {
			pr.Message = p.Err.Error()
		}
		out = append(out, pr)
	}
	return out
}

// loadCluster reads a cluster's facts, subscriptions and committed plans.
func (l *loader) loadCluster(ctx context.Context, s *side, c v1alpha1.Cluster) *clusterState {
	fsys := s.tree.FS
	source := "cluster " + c.Name
	cs := &clusterState{cluster: c, committed: map[plan.Key]*v1alpha1.InstallPlan{}}
	fail := func(err error) {
		cs.broken = true
		s.problems = append(s.problems, problemsOf(source, c.Path, err)...)
	}
	if err := cs.cluster.ReadFacts(fsys); err != nil {
		fail(err)
	}
	objs, err := l.objects(ctx, fsys, path.Join(c.Path, "subscriptions"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		fail(err)
	}
	if objs == nil {
		objs = &subscription.Objects{}
	}
	cs.objects = objs
	if err := readPlans(fsys, c, cs.committed); err != nil {
		fail(err)
	}
	return cs
}

// objects loads a cluster's subscriptions, once per folder content: many
// clusters share theirs, and a pull request leaves most folders alone.
func (l *loader) objects(ctx context.Context, fsys fs.FS, dir string) (*subscription.Objects, error) {
	hash, ok := objectHash(fsys, dir)
	key := objectsKey{dir, hash}
	if ok {
		if r, seen := l.subs[key]; seen {
			return r.objs, r.err
		}
	}
	objs, err := subscription.LoadObjects(ctx, fsys, dir)
	if ok && ctx.Err() == nil {
		l.subs[key] = loadedObjects{objs, err}
	}
	return objs, err
}

// readPlans reads the installplan.yaml of every committed plan folder
// (<namespace>/<name>/); their manifests are the plan check's business.
func readPlans(fsys fs.FS, cluster v1alpha1.Cluster, out map[plan.Key]*v1alpha1.InstallPlan) error {
	keys, err := plan.Keys(fsys, cluster)
	if err != nil {
		return err
	}
	var errs []error
	for _, k := range keys {
		file := path.Join(plan.Dir(cluster, k), v1alpha1.InstallPlanFile)
		data, err := fs.ReadFile(fsys, file)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", file, err))
			continue
		}
		p, err := v1alpha1.LoadInstallPlan(file, data)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		out[k] = p
	}
	return errors.Join(errs...)
}
