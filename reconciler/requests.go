package reconciler

import (
	"context"
	"errors"
	"fmt"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/reconciler/apply"
)

// Requests reads the target's plans as a pass would apply them, with the
// same checks (the plan sits in its own folder, is for this cluster, and
// its manifests match its digest). It refuses the whole set when one plan
// does not load, naming each such plan, so that a preview never leaves a
// plan out. What a previous pass left (Installed, Inventory) is not set.
func Requests(ctx context.Context, t Target) ([]apply.Request, error) {
	set, err := loadPlans(ctx, t)
	if err != nil {
		return nil, err
	}
	return requests(set)
}

// Preview is what a pass over t would apply and delete, for a preview
// such as olmops diff: Requests carrying what t.Previous left (the
// installed bundle, the inventory that prune compares with, KeepRemoved
// unless t.Prune), and the removals of the subscriptions whose plan left
// the branch, which a pass deletes when t.Prune, as remove decides.
func Preview(ctx context.Context, t Target) ([]apply.Request, []apply.RemoveRequest, error) {
	set, err := loadPlans(ctx, t)
	if err != nil {
		return nil, nil, err
	}
	if _, err := requests(set); err != nil {
		return nil, nil, err
	}
	reqs := make([]apply.Request, 0, len(set.plans))
	for _, p := range set.plans {
		prev := previous(t.Previous, p.namespace, p.name)
		reqs = append(reqs, p.request(prev, parseInventory(prev.Inventory), t.Prune))
	}
	var removals []apply.RemoveRequest
	for _, prev := range leftBranch(set, t.Previous) {
		if t.Prune && len(prev.Inventory) > 0 {
			removals = append(removals, set.removal(t.Cluster, prev, parseInventory(prev.Inventory)))
		}
	}
	return reqs, removals, nil
}

// request is p's apply request from where prev left it (inv is prev's
// inventory), keeping what other plans of the pass contain: the one
// construction that apply and its preview share, so that diff shows what
// apply would do.
func (p *loadedPlan) request(prev v1alpha1.SubscriptionStatus, inv apply.Inventory, prune bool) apply.Request {
	req := p.req
	req.Installed = prev.InstalledBundle
	req.Inventory = inv
	req.Shared = p.contained.shared(p.namespace+"/"+p.name, inv)
	req.KeepRemoved = !prune
	return req
}

// removal deletes inv, what prev's plan left before it left the branch,
// but for what a plan of the pass still contains.
func (set *planSet) removal(cluster string, prev v1alpha1.SubscriptionStatus, inv apply.Inventory) apply.RemoveRequest {
	return apply.RemoveRequest{Cluster: cluster, Namespace: prev.Namespace, Subscription: prev.Name, Inventory: inv, Shared: set.contained.shared("", inv)}
}

func requests(set *planSet) ([]apply.Request, error) {
	var reqs []apply.Request
	var errs []error
	for _, p := range set.plans {
		if p.err != nil {
			errs = append(errs, fmt.Errorf("%s/%s: %w", p.namespace, p.name, p.err))
			continue
		}
		reqs = append(reqs, p.req)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return reqs, nil
}
