package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/resolver"
	"github.com/olmops/olmops/subscription"
)

// kindDependency is the kind plan records for a plan olmops made because
// another operator needs it.
const kindDependency = "Dependency"

// subKey names a subscription in a repository.
type subKey struct{ cluster, namespace, name string }

// resolvedSub is one subscription's resolution on one side.
type resolvedSub struct {
	kind, pkg, approval string
	pos                 Pos
	res                 Resolved
	warnings            []string
}

// member is a subscription of a namespace as the planner resolves it: an
// intent, or a dependency a committed plan installed.
type member struct {
	name     string
	intent   *subscription.Intent
	plan     *v1alpha1.InstallPlan
	approval string
	req      resolver.Request
}

// resolveCluster resolves every namespace of a cluster the way plan does,
// installed where the committed plans left each subscription.
func (l *loader) resolveCluster(ctx context.Context, s *side, cs *clusterState, out map[subKey]*resolvedSub) error {
	c := cs.cluster
	byNS := map[string][]member{}
	for i := range cs.objects.Intents {
		in := &cs.objects.Intents[i]
		m := member{name: in.Name, intent: in, plan: cs.committed[plan.Key{Namespace: in.Namespace, Name: in.Name}]}
		m.approval = string(in.ApprovalOr(subscription.Approval(c.Approval)))
		m.req = in.Request(subscription.Policy(c.SuccessorPolicy))
		byNS[in.Namespace] = append(byNS[in.Namespace], m)
	}
	for k, p := range cs.committed {
		if p.Spec.Subscription.Kind != kindDependency || slices.ContainsFunc(byNS[k.Namespace], func(m member) bool { return m.name == k.Name }) {
			continue
		}
		m := member{name: k.Name, plan: p, approval: string(p.Spec.Approval)}
		m.req = resolver.Request{Package: p.Spec.Package, Catalog: p.Spec.Catalog.Name, Name: k.Name, Namespace: k.Namespace, Policy: resolver.Policy(p.Spec.SuccessorPolicy)}
		if n := len(p.Spec.Path); n > 0 && p.Spec.Path[n-1].Channel != "" {
			m.req.Channels = []string{p.Spec.Path[n-1].Channel}
		}
		byNS[k.Namespace] = append(byNS[k.Namespace], m)
	}
	for _, ns := range sortedKeys(byNS) {
		ms := byNS[ns]
		slices.SortFunc(ms, func(a, b member) int { return strings.Compare(a.name, b.name) })
		for i := range ms {
			if p := ms[i].plan; p != nil {
				ms[i].req.Installed = &resolver.Installed{Bundle: p.Spec.To.Name, Version: p.Spec.To.Version}
			}
		}
		res, err := l.resolveNamespace(ctx, s.ordered, c, ms)
		if err != nil {
			return err
		}
		for i, m := range ms {
			r := res.members[i]
			if m.plan != nil {
				r.res.Installed = m.plan.Spec.To.Name
			}
			r.kind, r.pkg, r.approval = kindDependency, m.req.Package, m.approval
			if m.intent != nil {
				r.kind, r.pos = string(m.intent.Kind), posOf(m.intent.Pos)
			}
			out[subKey{c.Name, ns, m.name}] = &r
		}
		for _, d := range res.deps {
			k := subKey{c.Name, ns, d.name}
			if out[k] == nil {
				out[k] = &resolvedSub{kind: kindDependency, pkg: d.pkg, approval: approvalOf(ms, d.requiredBy, c), res: d.res}
			}
		}
	}
	return nil
}

// approvalOf is the approval of a new dependency: that of the first
// subscription needing it, as plan gives it.
func approvalOf(ms []member, requiredBy []string, c v1alpha1.Cluster) string {
	for _, m := range ms {
		if slices.Contains(requiredBy, m.name) {
			return m.approval
		}
	}
	return string(c.Approval)
}

// nsResult is a namespace's resolution, without pointers into catalogs so
// it can be shared by every cluster asking the same.
type nsResult struct {
	members []resolvedSub
	deps    []newDependency
}

type newDependency struct {
	name, pkg  string
	requiredBy []string
	res        Resolved
}

// resolveNamespace resolves one namespace, once per distinct question:
// fleets repeat the same subscriptions on many clusters.
func (l *loader) resolveNamespace(ctx context.Context, cats []*catalog.Catalog, c v1alpha1.Cluster, ms []member) (*nsResult, error) {
	reqs := make([]resolver.Subscription, len(ms))
	for i, m := range ms {
		reqs[i] = resolver.Subscription{Request: m.req}
	}
	key, err := questionKey(cats, c, reqs)
	if err == nil {
		if r, ok := l.resolutions[key]; ok {
			return r, nil
		}
	}
	sol, rerr := resolver.Resolve(ctx, resolver.Namespace{
		Catalogs:      cats,
		Subscriptions: reqs,
		Cluster:       resolver.Cluster{KubernetesVersion: c.KubernetesVersion, OpenShiftVersion: c.OpenShiftVersion},
	})
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	r := &nsResult{members: make([]resolvedSub, len(ms))}
	if rerr != nil {
		failed := failure(rerr)
		for i := range r.members {
			r.members[i].res = failed
		}
	} else {
		r.fill(sol)
	}
	if err == nil {
		l.resolutions[key] = r
	}
	return r, nil
}

func (r *nsResult) fill(sol *resolver.Solution) {
	for i, res := range sol.Subscriptions {
		out := Resolved{Bundle: res.BundleName}
		if res.Bundle != nil && res.Bundle.Version != nil {
			out.Version = res.Bundle.Version.Original()
		}
		if res.Edge.Kind != resolver.EdgeStay && len(res.Path) > 0 {
			last := res.Path[len(res.Path)-1].Bundle
			out.Bundle, out.Version = last.Name, ""
			if last.Version != nil {
				out.Version = last.Version.Original()
			}
		}
		r.members[i].res = out
		for _, w := range res.Warnings {
			r.members[i].warnings = append(r.members[i].warnings, w.String())
		}
	}
	for _, d := range sol.Dependencies {
		nd := newDependency{name: d.Name, pkg: d.Package}
		if d.Bundle != nil {
			nd.res.Bundle = d.Bundle.Name
			if d.Bundle.Version != nil {
				nd.res.Version = d.Bundle.Version.Original()
			}
		}
		for _, m := range sol.Subscriptions {
			if slices.Contains(d.RequiredBy, m.BundleName) {
				nd.requiredBy = append(nd.requiredBy, m.Name)
			}
		}
		r.deps = append(r.deps, nd)
	}
}

// failure says why a namespace does not resolve, in the resolver's words.
func failure(err error) Resolved {
	var u *resolver.Unsatisfiable
	if errors.As(err, &u) {
		return Resolved{Error: "constraints not satisfiable", Explanation: u.Explanation}
	}
	return Resolved{Error: err.Error()}
}

// questionKey identifies a resolution by its inputs: the catalogs (by
// identity: a side's catalogs are loaded once), the cluster's facts and
// the requests.
func questionKey(cats []*catalog.Catalog, c v1alpha1.Cluster, reqs []resolver.Subscription) (string, error) {
	var b strings.Builder
	for _, cat := range cats {
		fmt.Fprintf(&b, "%p:%d:%v:%q,", cat.Packages, cat.Priority, cat.Labels, cat.Namespaces)
	}
	fmt.Fprintf(&b, "|%s|%s|", c.KubernetesVersion, c.OpenShiftVersion)
	data, err := json.Marshal(reqs)
	b.Write(data)
	return b.String(), err
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
