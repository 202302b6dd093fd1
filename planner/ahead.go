package planner

import (
	"context"
	"runtime"
	"sync"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
)

// planned is one cluster's plans, computed before or at its turn.
type planned struct {
	in   plan.Input
	res  *plan.Result
	err  error
	done chan struct{}
}

// ahead plans the clusters of one branch a few turns before the branch's
// loop commits them, on other goroutines: planning a cluster reads only
// the branch's snapshot and fills shared memos, so it may overlap the
// previous cluster's commit, which is mostly I/O. The loop still takes
// the results in cluster order, so the commits are the same as planned
// one by one. A cluster that follows others (promotion) is planned at its
// turn only: its evidence is the followed clusters' branch as this run's
// earlier commits left it.
//
// Nothing started is abandoned: wait lets every goroutine finish, so a
// cancelled lookup cannot poison a memo the next run shares (the image
// pinner's), and no goroutine outlives the branch.
type ahead struct {
	ctx      context.Context
	plan     func(ctx context.Context, c v1alpha1.Cluster) (plan.Input, *plan.Result, error)
	clusters []v1alpha1.Cluster
	depth    int
	started  []*planned
	wg       sync.WaitGroup
}

func (p *Planner) ahead(ctx context.Context, snap *gitsource.Snapshot, repo *v1alpha1.RepositoryConfig, clusters []v1alpha1.Cluster) *ahead {
	return &ahead{
		ctx:      ctx,
		clusters: clusters,
		depth:    runtime.GOMAXPROCS(0),
		started:  make([]*planned, len(clusters)),
		plan: func(ctx context.Context, c v1alpha1.Cluster) (plan.Input, *plan.Result, error) {
			in, err := p.clusterInput(ctx, snap, repo, c)
			if err != nil {
				return in, nil, err
			}
			in.Renders = p.renders
			res, err := plan.Cluster(ctx, in, p.digests)
			return in, res, err
		},
	}
}

// get returns cluster i's plans, after starting the next clusters'.
func (a *ahead) get(i int) (plan.Input, *plan.Result, error) {
	for j := i + 1; j < len(a.clusters) && j <= i+a.depth; j++ {
		a.start(j)
	}
	pl := a.started[i]
	if pl == nil {
		return a.plan(a.ctx, a.clusters[i])
	}
	<-pl.done
	a.started[i] = nil // let the result go once the loop has it
	return pl.in, pl.res, pl.err
}

func (a *ahead) start(i int) {
	if a.started[i] != nil || a.clusters[i].Promotion != nil {
		return
	}
	pl := &planned{done: make(chan struct{})}
	a.started[i] = pl
	c := a.clusters[i]
	a.wg.Go(func() {
		defer close(pl.done)
		pl.in, pl.res, pl.err = a.plan(a.ctx, c)
	})
}

// wait returns once every started cluster is planned.
func (a *ahead) wait() { a.wg.Wait() }
