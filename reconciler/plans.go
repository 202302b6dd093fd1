package reconciler

import (
	"context"
	"fmt"
	"io/fs"
	"path"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/reconciler/apply"
)

// InvalidError is a repository that cannot be applied as committed: its
// olmops.yaml does not load, or it has no such cluster. Only a new commit
// (or a spec change) helps.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }

func (e *InvalidError) Unwrap() error { return e.Err }

// planSet is what a pass applies: the cluster's plans at the commit.
type planSet struct {
	fsys    fs.FS
	snap    *gitsource.Snapshot
	cfg     *v1alpha1.RepositoryConfig
	cluster v1alpha1.Cluster
	plans   []*loadedPlan
	// contained says which plans contain an object (see shared).
	contained containers
	// carriers maps a plan folder to the commit that last changed it,
	// where its status is posted.
	carriers map[string]plumbing.Hash
}

// loadedPlan is one plan folder, loaded or not.
type loadedPlan struct {
	dir             string
	namespace, name string
	req             apply.Request
	// file is the plan; nil when it did not load.
	file *v1alpha1.InstallPlan
	// err says why the plan cannot be applied: it names the file and line.
	err error
	// carrier is the commit that last changed the folder, where the
	// plan's status goes; "" when unknown.
	carrier string
	// contained is the pass's index of the plans' target objects.
	contained containers
}

// bundle is the plan's target bundle, or what the status calls a plan that
// did not load.
func (p *loadedPlan) bundle() string {
	if p.file == nil {
		return "plan"
	}
	return p.file.Spec.To.Name
}

// loadPlans reads the target's cluster and every plan folder under
// clusters/<cluster>/plans/<namespace>/<subscription>/. A plan that does
// not load is kept with its error, so that it fails alone.
func loadPlans(ctx context.Context, t Target) (*planSet, error) {
	snap, err := t.Repo.Snapshot(ctx, t.Commit)
	if err != nil {
		return nil, fmt.Errorf("read commit %s: %w", t.Commit, err)
	}
	set := &planSet{fsys: snap.FS(), snap: snap}
	if set.cfg, err = v1alpha1.ReadRepository(set.fsys, t.Branch); err != nil {
		return nil, &InvalidError{err}
	}
	c, ok := findCluster(set.cfg, t.Cluster)
	if !ok {
		return nil, &InvalidError{fmt.Errorf("%s: no cluster %q", v1alpha1.RepositoryFile, t.Cluster)}
	}
	if err := c.ReadFacts(set.fsys); err != nil {
		return nil, &InvalidError{err}
	}
	set.cluster = c
	keys, err := plan.Keys(set.fsys, c)
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(keys))
	for i, k := range keys {
		dirs[i] = plan.Dir(c, k)
		set.plans = append(set.plans, loadPlan(ctx, set.fsys, dirs[i], t.Cluster))
	}
	shareCRDs(set.plans)
	set.contained = containersOf(set.plans)
	for _, p := range set.plans {
		p.contained = set.contained
	}
	if len(dirs) > 0 {
		if set.carriers, err = t.Repo.LastChanged(ctx, t.Commit, dirs); err != nil {
			return nil, fmt.Errorf("find the commits that carried the plans: %w", err)
		}
		for _, p := range set.plans {
			if c, ok := set.carriers[p.dir]; ok {
				p.carrier = c.String()
			}
		}
	}
	return set, ctx.Err()
}

func findCluster(cfg *v1alpha1.RepositoryConfig, name string) (v1alpha1.Cluster, bool) {
	for _, c := range cfg.Spec.Clusters {
		if c.Name == name {
			return c, true
		}
	}
	return v1alpha1.Cluster{}, false
}

// loadPlan reads one plan folder and checks that it is where it says it
// belongs, so a plan copied to another folder cannot install elsewhere.
func loadPlan(ctx context.Context, fsys fs.FS, dir, cluster string) *loadedPlan {
	p := &loadedPlan{dir: dir, namespace: path.Base(path.Dir(dir)), name: path.Base(dir)}
	req, file, err := apply.ReadRequest(ctx, fsys, dir)
	if err != nil {
		p.err = err
		return p
	}
	p.file = file
	where := path.Join(dir, v1alpha1.InstallPlanFile)
	switch {
	case file.Metadata.Namespace != p.namespace || file.Metadata.Name != p.name:
		p.err = fmt.Errorf("%s: the plan is for %s/%s but sits in the folder of %s/%s", where,
			file.Metadata.Namespace, file.Metadata.Name, p.namespace, p.name)
	case file.Spec.Cluster != cluster:
		p.err = fmt.Errorf("%s: the plan is for cluster %q, not %q", where, file.Spec.Cluster, cluster)
	}
	req.Cluster = cluster
	p.req = req
	return p
}
