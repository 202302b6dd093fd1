package reconciler

import (
	"context"
	"errors"
	"fmt"

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
	reqs, err := requests(set)
	if err != nil {
		return nil, nil, err
	}
	for i := range reqs {
		prev := previous(t.Previous, reqs[i].Namespace, reqs[i].Subscription)
		reqs[i].Installed, reqs[i].Inventory, reqs[i].KeepRemoved = prev.InstalledBundle, parseInventory(prev.Inventory), !t.Prune
	}
	var removals []apply.RemoveRequest
	for _, prev := range leftBranch(set, t.Previous) {
		if t.Prune && len(prev.Inventory) > 0 {
			removals = append(removals, apply.RemoveRequest{Cluster: t.Cluster, Namespace: prev.Namespace,
				Subscription: prev.Name, Inventory: parseInventory(prev.Inventory)})
		}
	}
	return reqs, removals, nil
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
