package review

import (
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/planner"
)

// PlanClusters names the clusters the plan check renders at the head for
// scope, and why there are none when it should not run: the planner
// refuses a head whose olmops.yaml or catalogs have problems, which the
// report already lists.
func (r *Report) PlanClusters(scope PlanScope) ([]string, string) {
	hs, bs := r.head, r.base
	if scope == PlansNone || hs == nil {
		return nil, ""
	}
	if !hs.configured || len(hs.broken) > 0 || r.headCatalogProblems() {
		return nil, "plans not checked: the planner refuses the head's olmops.yaml or catalogs until their problems are fixed"
	}
	var out []string
	for _, hc := range hs.clusters {
		name := hc.cluster.Name
		if hc.broken || len(r.only) > 0 && !slices.Contains(r.only, name) {
			continue
		}
		if scope == PlansAll || clusterChanged(bs, hs, hc) {
			out = append(out, name)
		}
	}
	return out, ""
}

func (r *Report) headCatalogProblems() bool {
	for _, p := range r.Problems {
		if p.Status != Fixed && strings.HasPrefix(p.Source, "catalog ") {
			return true
		}
	}
	return false
}

// clusterChanged tells whether the head changes a cluster's entry or any
// file of its folder.
func clusterChanged(bs, hs *side, hc *clusterState) bool {
	bc := bs.cluster(hc.cluster.Name)
	if bc == nil || bc.cluster != hc.cluster {
		return true
	}
	return changed(bs.tree.FS, hs.tree.FS, hc.cluster.Path)
}

// changed tells whether a file or folder differs between the sides; true
// when a tree cannot tell.
func changed(bfs, hfs fs.FS, name string) bool {
	b, okb := objectHash(bfs, name)
	h, okh := objectHash(hfs, name)
	if !okb && !okh {
		_, errb := fs.Stat(bfs, name)
		_, errh := fs.Stat(hfs, name)
		return errb == nil || errh == nil // both absent: unchanged
	}
	return !okb || !okh || b != h
}

// AddPlanCheck records the planner's check of the head. base, when not
// nil, is the same check of the base, which tells the stale plans and the
// clusters that cannot be planned that were so already.
func (r *Report) AddPlanCheck(head, base *planner.Report) {
	pc := &PlanCheck{}
	for _, c := range head.Clusters {
		pc.Clusters = append(pc.Clusters, c.Name)
		if c.Err != nil {
			ce := ClusterError{Cluster: c.Name, Status: New, Message: c.Error}
			if base != nil && failedAlike(base, c) {
				ce.Status = Present
			}
			pc.Errors = append(pc.Errors, ce)
			continue
		}
		for _, p := range c.Plans {
			if p.Action == planner.ActionStale {
				sp := r.stalePlan(c.Name, p)
				if base != nil && staleAlike(base, c.Name, p) && !sp.Touched {
					sp.Status = Present
				}
				pc.Stale = append(pc.Stale, sp)
			}
		}
	}
	r.Plans = pc
}

// staleAlike tells whether the base's check found the same change pending.
func staleAlike(base *planner.Report, cluster string, p planner.PlanReport) bool {
	for _, c := range base.Clusters {
		for _, b := range c.Plans {
			if c.Name == cluster && b.Key == p.Key && b.Action == planner.ActionStale && b.Title == p.Title && b.State == p.State {
				return true
			}
		}
	}
	return false
}

func failedAlike(base *planner.Report, c planner.ClusterReport) bool {
	id := lineRefs.ReplaceAllString(c.Error, "$1")
	for _, b := range base.Clusters {
		if b.Name == c.Name && b.Err != nil && lineRefs.ReplaceAllString(b.Error, "$1") == id {
			return true
		}
	}
	return false
}

func (r *Report) stalePlan(cluster string, p planner.PlanReport) StalePlan {
	sp := StalePlan{Cluster: cluster, Namespace: p.Namespace, Name: p.Name, State: string(p.State), Title: p.Title, Status: New,
		Escalations: p.Escalations, RiskApproval: p.RiskApproval}
	hc := r.head.cluster(cluster)
	if hc == nil {
		return sp
	}
	dir := plan.Dir(hc.cluster, p.Key)
	sp.Touched = changed(r.base.tree.FS, r.head.tree.FS, dir)
	file := path.Join(dir, v1alpha1.InstallPlanFile)
	if _, err := fs.Stat(r.head.tree.FS, file); err == nil {
		sp.Pos = Pos{File: file}
		return sp
	}
	for _, in := range hc.objects.Intents {
		if in.Namespace == p.Namespace && in.Name == p.Name {
			sp.Pos = posOf(in.Pos)
		}
	}
	return sp
}
