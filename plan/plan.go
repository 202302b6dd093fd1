package plan

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/render"
	"github.com/olmops/olmops/resolver"
	"github.com/olmops/olmops/subscription"
)

// State says how a plan differs from the committed one.
type State string

// Plan states.
const (
	// UpToDate: the committed plan is what the inputs give.
	UpToDate State = "UpToDate"
	// Install: nothing is committed for the subscription yet.
	Install State = "Install"
	// Upgrade: the plan moves the operator to another bundle.
	Upgrade State = "Upgrade"
	// Refresh: the same bundle, but its manifests or inputs changed
	// (Subscription config, overlay, catalog metadata).
	Refresh State = "Refresh"
	// Remove: the subscription is gone; its plan folder is deleted and
	// the applier prunes what it installed.
	Remove State = "Remove"
)

// Plan is one subscription's plan as it should be committed.
type Plan struct {
	Key
	// Dir is the plan's folder, relative to the repository root.
	Dir string
	// State compares the plan with the committed one.
	State State
	// File is the plan; for Remove, the committed one.
	File *v1alpha1.InstallPlan
	// Files of the plan's folder by relative path; nil for Remove.
	Files map[string][]byte
	// Committed is the plan on the target branch; nil when none.
	Committed *Committed
	// Changes summarises the target manifests against the committed ones.
	Changes render.Changes
	// Group names the subscription whose proposal carries this plan: the
	// plan's own name, or for a Dependency the first subscription needing it.
	Group string
	// Needs are the subscriptions of the namespace whose resolved bundles
	// this plan's bundle requires.
	Needs []Need
	// Waits says why the plan rides in another subscription's proposal
	// rather than its own: it needs that subscription's pending change.
	Waits []string
	// Package is the catalog package of the plan's target, for graphs;
	// nil for Remove.
	Package *catalog.Package
	// RiskApproval: the subscription is Automatic, but the change's
	// escalations are held for a person's approval by olmops.yaml's
	// policy, so the plan is proposed rather than committed.
	RiskApproval bool
	// Promotion is the evidence that let the change reach a cluster that
	// follows others, one line per followed cluster; nil for a cluster
	// that follows nobody.
	Promotion []string
}

// Result is a cluster's plans.
type Result struct {
	// Plans sorted by namespace and name.
	Plans []Plan
	// Findings are cluster-level facts from resolution, such as operators
	// that keep the cluster from its next OpenShift minor version.
	Findings []resolver.Finding
	// Holds are the subscriptions promotion keeps where they are, sorted.
	Holds []Hold
}

// Changed returns the plans that are not up to date.
func (r *Result) Changed() []Plan {
	var out []Plan
	for _, p := range r.Plans {
		if p.State != UpToDate {
			out = append(out, p)
		}
	}
	return out
}

// Cluster plans every subscription of one cluster. Any error, be it a
// subscription that does not resolve or a bundle that does not render,
// fails the whole cluster: a half-planned cluster is never committed.
func Cluster(ctx context.Context, in Input, digests *Digests) (*Result, error) {
	if digests == nil {
		digests = NewDigests()
	}
	renders := in.Renders
	if renders == nil {
		renders = NewRenders()
	}
	pl := &planner{in: in, digests: digests, renders: renders, intents: map[Key]bool{}}
	for _, i := range in.Objects.Intents {
		pl.intents[Key{i.Namespace, i.Name}] = true
	}
	res := &Result{}
	var errs []error
	for _, ns := range pl.namespaces() {
		plans, findings, err := pl.namespace(ctx, ns)
		if err != nil {
			errs = append(errs, fmt.Errorf("cluster %s, namespace %s: %w", in.Cluster.Name, ns.name, err))
			continue
		}
		res.Plans = append(res.Plans, plans...)
		res.Findings = append(res.Findings, findings...)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := pl.checkAPIOwners(res.Plans); err != nil {
		return nil, fmt.Errorf("cluster %s: %w", in.Cluster.Name, err)
	}
	res.Plans = append(res.Plans, pl.removed()...)
	slices.SortFunc(res.Plans, func(a, b Plan) int { return a.Key.Compare(b.Key) })
	res.Holds = pl.holds
	slices.SortFunc(res.Holds, func(a, b Hold) int { return a.Key.Compare(b.Key) })
	return res, nil
}

type planner struct {
	in      Input
	digests *Digests
	renders *Renders
	// intents holds the keys that have an intent file.
	intents map[Key]bool
	// holds collects the subscriptions promotion keeps.
	holds []Hold
}

// member is one subscription of a namespace: an intent, or a dependency
// committed earlier that resolves like a subscription from then on.
type member struct {
	key       Key
	intent    *subscription.Intent // nil for a committed dependency
	committed *Committed
}

type namespaceMembers struct {
	name    string
	members []member
}

// namespaces groups the intents and the committed dependencies.
func (pl *planner) namespaces() []namespaceMembers {
	byNS := map[string][]member{}
	for i := range pl.in.Objects.Intents {
		in := &pl.in.Objects.Intents[i]
		k := Key{in.Namespace, in.Name}
		byNS[in.Namespace] = append(byNS[in.Namespace], member{key: k, intent: in, committed: pl.in.Committed[k]})
	}
	for k, c := range pl.in.Committed {
		if c.Plan.Spec.Subscription.Kind != kindDependency || pl.intents[k] {
			continue
		}
		byNS[k.Namespace] = append(byNS[k.Namespace], member{key: k, committed: c})
	}
	var out []namespaceMembers
	for _, ns := range sortedKeys(byNS) {
		ms := byNS[ns]
		slices.SortFunc(ms, func(a, b member) int { return a.key.Compare(b.key) })
		out = append(out, namespaceMembers{name: ns, members: ms})
	}
	return out
}

// removed returns Remove plans for committed plans without intent, except
// dependencies, which stay as OLM keeps the subscriptions it created.
func (pl *planner) removed() []Plan {
	var out []Plan
	for _, k := range sortedPlanKeys(pl.in.Committed) {
		c := pl.in.Committed[k]
		if pl.intents[k] || c.Plan.Spec.Subscription.Kind == kindDependency {
			continue
		}
		out = append(out, Plan{Key: k, Dir: Dir(pl.in.Cluster, k), State: Remove, File: c.Plan, Committed: c, Group: k.Name})
	}
	return out
}

func sortedPlanKeys(m map[Key]*Committed) []Key {
	keys := slices.Collect(maps.Keys(m))
	slices.SortFunc(keys, Key.Compare)
	return keys
}
