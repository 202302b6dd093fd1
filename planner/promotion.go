package planner

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
)

// promotion gathers, for a cluster that follows others, what those
// clusters' controllers last reported on the commits that carried their
// plans; plan weighs it. nil for a cluster that follows nobody.
func (p *Planner) promotion(ctx context.Context, repo *v1alpha1.RepositoryConfig, c v1alpha1.Cluster) (*plan.Promotion, error) {
	if c.Promotion == nil {
		return nil, nil
	}
	out := &plan.Promotion{After: c.Promotion.After, Soak: c.Promotion.SoakTime(), Now: p.now()}
	if p.forge == nil {
		out.Unread = fmt.Sprintf("the statuses of %s are not read without a forge (run with --push, or --check without --ref)", strings.Join(c.Promotion.After, ", "))
		return out, nil
	}
	for _, name := range c.Promotion.After {
		followed, err := selectClusters(repo, []string{name})
		if err != nil {
			return nil, fmt.Errorf("cluster %s: promotion: %w", c.Name, err)
		}
		ev, err := p.evidence(ctx, followed[0])
		if err != nil {
			return nil, fmt.Errorf("cluster %s: promotion: reading %s's statuses: %w", c.Name, name, err)
		}
		out.Evidence = append(out.Evidence, ev...)
	}
	return out, nil
}

func (p *Planner) now() time.Time {
	if p.opts.Now != nil {
		return p.opts.Now()
	}
	return time.Now()
}

// evidence reads the latest status of each plan of a followed cluster, on
// the commit that last changed the plan's folder on its target branch. A
// plan without a status gives no evidence.
func (p *Planner) evidence(ctx context.Context, c v1alpha1.Cluster) ([]plan.Evidence, error) {
	head, err := p.tip(ctx, c.TargetBranch)
	if err != nil {
		return nil, err
	}
	snap, err := p.opts.Repo.Snapshot(ctx, head)
	if err != nil {
		return nil, err
	}
	committed, err := readPlans(snap, c, p.opts.Plans)
	if err != nil {
		return nil, err
	}
	keys := slices.SortedFunc(maps.Keys(committed), plan.Key.Compare)
	dirs := make([]string, len(keys))
	for i, k := range keys {
		dirs[i] = plan.Dir(c, k)
	}
	carriers, err := p.opts.Repo.LastChanged(ctx, head, dirs)
	if err != nil {
		return nil, err
	}
	byCommit := map[plumbing.Hash]map[string]gitsource.DatedStatus{}
	var out []plan.Evidence
	for i, k := range keys {
		carrier, ok := carriers[dirs[i]]
		if !ok {
			continue
		}
		if byCommit[carrier] == nil {
			if byCommit[carrier], err = p.datedStatuses(ctx, carrier.String()); err != nil {
				return nil, err
			}
		}
		st, ok := byCommit[carrier][commitstatus.Context(c.Name, k.Namespace, k.Name)]
		if !ok {
			continue
		}
		out = append(out, weigh(c.Name, k, committed[k].Plan.Spec.Package, st))
	}
	return out, nil
}

// datedStatuses reads a commit's statuses by context, dated when the
// forge can; undated, a soak cannot be shown and plan waits.
func (p *Planner) datedStatuses(ctx context.Context, commit string) (map[string]gitsource.DatedStatus, error) {
	out := map[string]gitsource.DatedStatus{}
	if d, ok := p.forge.(gitsource.StatusDater); ok {
		list, err := d.DatedStatuses(ctx, commit)
		for _, s := range list {
			out[s.Context] = s
		}
		return out, err
	}
	list, err := p.forge.Statuses(ctx, commit)
	for _, s := range list {
		out[s.Context] = gitsource.DatedStatus{Status: s}
	}
	return out, err
}

// weigh reads one status as evidence: healthy only for a success that
// says the bundle is installed and healthy; a failure or error fails; the
// rest, unreadable descriptions included, is pending.
func weigh(cluster string, k plan.Key, pkg string, st gitsource.DatedStatus) plan.Evidence {
	e := plan.Evidence{Cluster: cluster, Key: k, Package: pkg, Health: plan.Pending, Description: st.Description, Since: st.Since}
	r, err := commitstatus.Parse(st.Description)
	if err == nil {
		e.Bundle = r.Bundle
	}
	switch {
	case st.State == gitsource.StatusFailure, st.State == gitsource.StatusError:
		e.Health = plan.Failing
	case st.State == gitsource.StatusSuccess && err == nil && r.Phase == commitstatus.Installed && r.Healthy:
		e.Health = plan.Healthy
	}
	if e.Description == "" {
		e.Description = string(st.State)
	}
	return e
}
