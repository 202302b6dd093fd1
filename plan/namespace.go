package plan

import (
	"context"
	"fmt"
	"slices"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/resolver"
	"github.com/olmops/olmops/subscription"
)

// kindDependency marks a plan olmops proposed because another operator
// needs it; it has no intent file.
const kindDependency = "Dependency"

// hop is one step of a path to render.
type hop struct {
	cat       *catalog.Catalog
	channel   string
	bundle    *catalog.Bundle
	edge      string
	skipRange string
}

// namespace resolves one namespace and plans each of its subscriptions and
// the dependencies they need.
func (pl *planner) namespace(ctx context.Context, ns namespaceMembers) ([]Plan, []resolver.Finding, error) {
	subs := make([]resolver.Subscription, len(ns.members))
	for i, m := range ns.members {
		subs[i] = resolver.Subscription{Request: pl.request(m)}
	}
	sol, err := pl.resolve(ctx, subs)
	if err != nil {
		return nil, nil, err
	}
	var evidence map[Key][]string
	if pl.in.Promotion != nil {
		if ns, sol, evidence, err = pl.promote(ctx, ns, subs, sol); err != nil {
			return nil, nil, err
		}
	}
	var plans []Plan
	requiredBy := dependents(sol)
	need := needs(sol)
	for i, r := range sol.Subscriptions {
		m := ns.members[i]
		hops, err := pl.hops(m, r)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.where(), err)
		}
		spec := pl.spec(m, r)
		for _, d := range sol.Dependencies {
			if slices.Contains(requiredBy[d.Name], m.key.Name) {
				spec.Dependencies = append(spec.Dependencies, v1alpha1.PlanDependency{Name: d.Name, Package: d.Package, Bundle: d.Bundle.Name})
			}
		}
		p, err := pl.build(ctx, m, spec, hops, ns.name)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", m.where(), err)
		}
		p.Needs = need[i]
		if p.State == Install || p.State == Upgrade {
			p.Promotion = evidence[p.Key]
		}
		plans = append(plans, p)
	}
	for _, d := range sol.Dependencies {
		p, err := pl.dependency(ctx, ns, d, requiredBy[d.Name], plans)
		if err != nil {
			return nil, nil, fmt.Errorf("dependency %s: %w", d.Name, err)
		}
		plans = append(plans, p)
	}
	approveTogether(plans)
	return plans, sol.Findings, nil
}

// resolve resolves a namespace's subscriptions on the cluster.
func (pl *planner) resolve(ctx context.Context, subs []resolver.Subscription) (*resolver.Solution, error) {
	return resolver.Resolve(ctx, resolver.Namespace{
		Catalogs:      pl.in.Catalogs,
		Subscriptions: subs,
		Cluster:       resolver.Cluster{KubernetesVersion: pl.in.Cluster.KubernetesVersion, OpenShiftVersion: pl.in.Cluster.OpenShiftVersion},
	})
}

// where names a member in errors: its intent's file and line.
func (m member) where() string {
	if m.intent != nil {
		return fmt.Sprintf("%s: %s %s", m.intent.Pos, m.intent.Kind, m.key)
	}
	return "dependency " + m.key.String()
}

// request turns a member into a resolver request, installed where the
// committed plan left it (or, for an operator olmops adopts, where its
// Subscription's status says).
func (pl *planner) request(m member) resolver.Request {
	var req resolver.Request
	if m.intent != nil {
		req = m.intent.Request(subscription.Policy(pl.in.Cluster.SuccessorPolicy))
	} else {
		spec := m.committed.Plan.Spec
		req = resolver.Request{Package: spec.Package, Catalog: spec.Catalog.Name, Name: m.key.Name, Namespace: m.key.Namespace, Policy: resolver.Policy(spec.SuccessorPolicy)}
		if ch := spec.Path[len(spec.Path)-1].Channel; ch != "" {
			req.Channels = []string{ch}
		}
	}
	if m.committed != nil {
		to := m.committed.Plan.Spec.To
		req.Installed = &resolver.Installed{Bundle: to.Name, Version: to.Version}
	}
	return req
}

// dependents maps each dependency to the subscriptions whose chosen
// bundles need it.
func dependents(sol *resolver.Solution) map[string][]string {
	out := map[string][]string{}
	for _, d := range sol.Dependencies {
		for _, r := range sol.Subscriptions {
			if slices.Contains(d.RequiredBy, r.BundleName) && !slices.Contains(out[d.Name], r.Name) {
				out[d.Name] = append(out[d.Name], r.Name)
			}
		}
		slices.Sort(out[d.Name])
	}
	return out
}

// hops lists what to render: the resolved path, or when the subscription
// stays put, the committed path again (its config or overlay may have
// changed).
func (pl *planner) hops(m member, r resolver.Resolution) ([]hop, error) {
	if r.Edge.Kind != resolver.EdgeStay && len(r.Path) > 0 {
		out := make([]hop, len(r.Path))
		for i, h := range r.Path {
			out[i] = hop{cat: h.Catalog, bundle: h.Bundle, edge: string(h.Edge.Kind), skipRange: h.Edge.Range}
			if h.Channel != nil {
				out[i].channel = h.Channel.Name
			}
		}
		return out, nil
	}
	if m.committed == nil {
		if r.Bundle == nil {
			return nil, fmt.Errorf("installed bundle %s is in no catalog: nothing to render", r.BundleName)
		}
		h := hop{cat: r.Catalog, bundle: r.Bundle, edge: string(resolver.EdgeStay)}
		if r.Channel != nil {
			h.channel = r.Channel.Name
		}
		return []hop{h}, nil
	}
	return pl.committedHops(m.committed.Plan)
}

// committedHops finds the bundles of a committed path in the catalogs; nil
// when one is gone, and the committed plan then stays as it is.
func (pl *planner) committedHops(p *v1alpha1.InstallPlan) ([]hop, error) {
	var cat *catalog.Catalog
	for _, c := range pl.in.Catalogs {
		if c.Name == p.Spec.Catalog.Name {
			cat = c
		}
	}
	if cat == nil || cat.Packages[p.Spec.Package] == nil {
		return nil, nil
	}
	pkg := cat.Packages[p.Spec.Package]
	out := make([]hop, len(p.Spec.Path))
	for i, h := range p.Spec.Path {
		b := pkg.Bundles[h.Name]
		if b == nil {
			return nil, nil
		}
		out[i] = hop{cat: cat, channel: h.Channel, bundle: b, edge: h.Edge, skipRange: h.SkipRange}
	}
	return out, nil
}

// spec fills what a plan says about its subscription.
func (pl *planner) spec(m member, r resolver.Resolution) v1alpha1.InstallPlanSpec {
	spec := v1alpha1.InstallPlanSpec{Cluster: pl.in.Cluster.Name, Package: r.Package}
	if m.intent != nil {
		spec.Subscription = v1alpha1.PlanSubscription{Kind: string(m.intent.Kind), File: m.intent.Pos.File}
		if m.intent.Kind == subscription.KindClusterExtension {
			// The controller applies the plan as this account, and reads
			// it from the plan alone.
			spec.Subscription.ServiceAccount = m.intent.ServiceAccount
		}
		spec.Approval = v1alpha1.Approval(m.intent.ApprovalOr(subscription.Approval(pl.in.Cluster.Approval)))
		spec.SuccessorPolicy = v1alpha1.SuccessorPolicy(m.intent.PolicyOr(subscription.Policy(pl.in.Cluster.SuccessorPolicy)))
	} else {
		c := m.committed.Plan.Spec
		spec.Subscription, spec.Approval, spec.SuccessorPolicy = c.Subscription, c.Approval, c.SuccessorPolicy
	}
	for _, w := range r.Warnings {
		spec.Warnings = append(spec.Warnings, w.String())
	}
	return spec
}

// dependency plans an operator the namespace needs that no subscription
// names. It rides in the proposal of the first subscription needing it,
// with that subscription's approval.
func (pl *planner) dependency(ctx context.Context, ns namespaceMembers, d resolver.Dependency, requiredBy []string, plans []Plan) (Plan, error) {
	k := Key{ns.name, d.Name}
	spec := v1alpha1.InstallPlanSpec{
		Cluster: pl.in.Cluster.Name, Package: d.Package,
		Subscription: v1alpha1.PlanSubscription{Kind: kindDependency, RequiredBy: requiredBy},
		Approval:     pl.in.Cluster.Approval,
		// A dependency is proposed as a Subscription, so it takes that kind's policy.
		SuccessorPolicy: v1alpha1.SuccessorPolicy((&subscription.Intent{Kind: subscription.KindSubscription}).PolicyOr(subscription.Policy(pl.in.Cluster.SuccessorPolicy))),
	}
	group := k.Name
	if len(requiredBy) > 0 {
		group = requiredBy[0]
		for _, p := range plans {
			if p.Key == (Key{ns.name, group}) {
				spec.Approval = p.File.Spec.Approval
			}
		}
	}
	h := hop{cat: d.Catalog, bundle: d.Bundle, edge: string(resolver.EdgeInstall)}
	if d.Channel != nil {
		h.channel = d.Channel.Name
	}
	p, err := pl.build(ctx, member{key: k}, spec, []hop{h}, ns.name)
	p.Group = group
	return p, err
}
