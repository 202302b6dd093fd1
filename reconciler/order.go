package reconciler

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
)

// planNeeds is what one plan of a pass needs of the others, as OLM orders
// an InstallPlan's steps: the plans of its namespace that provide its
// required packages and APIs (indexes into planSet.plans), and what
// neither such a plan nor the cluster provides, in words.
type planNeeds struct {
	providers []int
	missing   []string
}

// needs reads each plan's target bundle in its catalog at the commit and
// matches its requirements (plan.Requires) with the other plans of its
// namespace; a required API no plan provides must be served by the
// cluster already. A plan whose bundle its catalog no longer holds is
// ordered by its spec.dependencies alone. The error is the API server's
// discovery failing, which may pass.
func (s *Syncer) needs(ctx context.Context, set *planSet) ([]planNeeds, error) {
	bundles := s.bundles(ctx, set)
	out := make([]planNeeds, len(set.plans))
	for i, p := range set.plans {
		if p.file == nil {
			continue
		}
		n := &out[i]
		for _, d := range p.file.Spec.Dependencies {
			n.add(set.index(p.namespace, d.Name))
		}
		if bundles[i] == nil {
			continue
		}
		req := plan.Requires(bundles[i])
		for _, g := range req.APIs {
			j := -1
			for k, q := range set.plans {
				if k != i && q.namespace == p.namespace && bundles[k] != nil && slices.Contains(bundles[k].Props.GVKs, g) {
					j = k
					break
				}
			}
			if j >= 0 {
				n.add(j)
				continue
			}
			served, err := s.served(g)
			if err != nil {
				return nil, err
			}
			if !served {
				n.missing = append(n.missing, plan.API(g))
			}
		}
		for _, r := range req.Packages {
			j := slices.IndexFunc(set.plans, func(q *loadedPlan) bool {
				return q != p && q.namespace == p.namespace && q.file != nil && q.file.Spec.Package == r.PackageName
			})
			if j < 0 {
				n.missing = append(n.missing, strings.TrimSuffix("package "+r.PackageName+" ("+r.VersionRange+")", " ()"))
			}
			n.add(j)
		}
	}
	return out, nil
}

func (n *planNeeds) add(j int) {
	if j >= 0 && !slices.Contains(n.providers, j) {
		n.providers = append(n.providers, j)
	}
}

// index finds a plan of the set by namespace and name; -1 when none.
func (s *planSet) index(namespace, name string) int {
	return slices.IndexFunc(s.plans, func(p *loadedPlan) bool { return p.namespace == namespace && p.name == name })
}

// bundles looks up each plan's target bundle; nil where it cannot be.
func (s *Syncer) bundles(ctx context.Context, set *planSet) []*catalog.Bundle {
	cache := s.Catalogs
	if cache == nil {
		cache = gitsource.NewCatalogCache(len(set.cfg.Spec.Catalogs))
	}
	out := make([]*catalog.Bundle, len(set.plans))
	for i, p := range set.plans {
		if p.file == nil {
			continue
		}
		b, err := lookup(ctx, cache, set, p.file.Spec.Catalog.Name, p.file.Spec.Package, p.file.Spec.To.Name)
		if err != nil {
			logr.FromContextOrDiscard(ctx).V(1).Info("requirements unknown: ordered by spec.dependencies only", "plan", p.dir, "reason", err.Error())
			continue
		}
		out[i] = b
	}
	return out
}

// served asks the API server, through the Applier's RESTMapper (which
// learns kinds as their CRDs appear), whether it serves g.
func (s *Syncer) served(g property.GVK) (bool, error) {
	_, err := s.Applier.Client.RESTMapper().RESTMapping(schema.GroupKind{Group: g.Group, Kind: g.Kind}, g.Version)
	switch {
	case err == nil:
		return true, nil
	case meta.IsNoMatchError(err):
		return false, nil
	}
	return false, fmt.Errorf("discover %s: %w", plan.API(g), err)
}

// waves orders the plans so that providers come before their dependents:
// each wave holds the plans whose providers are all in earlier waves, in
// the set's order (namespace, name), so ties are broken the same way on
// every pass. Plans that need each other (a cycle) share the last wave.
func waves(needs []planNeeds) [][]int {
	done := make([]bool, len(needs))
	var out [][]int
	for left := len(needs); left > 0; {
		var wave []int
		for i, n := range needs {
			if !done[i] && !slices.ContainsFunc(n.providers, func(j int) bool { return !done[j] }) {
				wave = append(wave, i)
			}
		}
		if len(wave) == 0 { // a cycle: apply the rest together
			for i := range needs {
				if !done[i] {
					wave = append(wave, i)
				}
			}
		}
		for _, i := range wave {
			done[i] = true
		}
		left -= len(wave)
		out = append(out, wave)
	}
	return out
}

// blocked says why plan i must not be applied now: something it needs is
// absent, or a provider applied earlier in the pass is not installed and
// healthy. earlier tells the providers whose results are final.
func blocked(set *planSet, i int, n planNeeds, results []*subResult, earlier func(int) bool) string {
	if len(n.missing) > 0 {
		return "requires " + strings.Join(n.missing, ", ") + ": absent from the cluster and from the plans of " + set.plans[i].namespace
	}
	var waiting []string
	for _, j := range n.providers {
		if !earlier(j) {
			continue
		}
		if r := results[j]; !ready(r) {
			q := set.plans[j]
			waiting = append(waiting, fmt.Sprintf("%s/%s (%s)", q.namespace, q.name, strings.ToLower(string(r.status.Phase))))
		}
	}
	if len(waiting) > 0 {
		return "waits for " + strings.Join(waiting, ", ") + " to be installed and healthy first"
	}
	return ""
}

// ready reports a provider its dependents may rely on: installed and
// healthy, or held by its own Upgradeable=False on a bundle still in place.
func ready(r *subResult) bool {
	st := r.status
	switch st.Phase {
	case v1alpha1.SubscriptionInstalled:
		return st.Healthy
	case v1alpha1.SubscriptionHeld:
		return r.reason == v1alpha1.UpgradeHeldReason && st.InstalledBundle != ""
	}
	return false
}

// holdFor is the result of a plan not applied because of what it needs:
// held, nothing of it written, what an earlier pass installed left as it
// is. The commit status says "held at" the installed bundle, or at the
// target when nothing is installed yet, with the reason.
func holdFor(p *loadedPlan, prev v1alpha1.SubscriptionStatus, why string) *subResult {
	st := prev
	st.Namespace, st.Name = p.namespace, p.name
	st.Phase, st.Message, st.TargetBundle = v1alpha1.SubscriptionHeld, p.bundle()+" not applied: "+why, p.bundle()
	at := prev.InstalledBundle
	if at == "" {
		at = p.bundle()
	}
	return &subResult{plan: p, status: st, reason: v1alpha1.DependencyHeldReason,
		report: commitstatus.Report{Phase: commitstatus.Held, Bundle: at, Reason: st.Message}}
}
