package apply

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
)

// RemoveRequest is a subscription whose plan left the repository and what
// its last apply left.
type RemoveRequest struct {
	// Cluster names the cluster, for logs.
	Cluster string
	// Namespace is the install namespace, for logs; it is not deleted.
	Namespace string
	// Subscription names the plan that left.
	Subscription string
	// Inventory is the last Result.Inventory.
	Inventory Inventory
	// PruneCRDs lets Remove delete the inventory's
	// CustomResourceDefinitions, and with them every custom resource of
	// their kinds.
	PruneCRDs bool
	// Shared are the objects the cluster's other plans contain, such as
	// the per-API ClusterRoles of a CRD they share: Remove leaves them to
	// those plans and drops them from the Inventory.
	Shared Inventory
}

// Remove deletes every object of req's Inventory, by the rules prune
// follows: dependents first (reverse stage order), background
// propagation, a UID precondition, only objects still labelled as managed
// by olmops (the others leave the inventory and stay). Namespaces are
// never deleted and leave the inventory; CustomResourceDefinitions are
// deleted only with PruneCRDs, and stay in the inventory until then.
//
// The Result has no Phase, Hop or Installed; its Inventory is what
// remains to delete (the kept CRDs, and entries whose deletion failed),
// which the caller persists and passes back until it is empty, and Pruned
// counts the objects deleted. The error joins the deletions that failed;
// the Result is not nil then. A RemoveRequest without Namespace or
// Subscription gives a nil Result.
func (a *Applier) Remove(ctx context.Context, req RemoveRequest) (*Result, error) {
	if req.Namespace == "" || req.Subscription == "" {
		return nil, fmt.Errorf("remove %s/%s: namespace and subscription are required", req.Namespace, req.Subscription)
	}
	log := logr.FromContextOrDiscard(ctx).WithValues("subscription", req.Namespace+"/"+req.Subscription)
	ctx = logr.NewContext(ctx, log)
	shared := req.Shared.keys()
	inv, n, err := a.withDefaults().sweep(ctx, normalize(req.Inventory), shared, req.PruneCRDs)
	res := &Result{Inventory: inv.without(shared), Pruned: n}
	log.V(1).Info("removed", "deleted", n, "remaining", len(inv))
	if err != nil {
		return res, fmt.Errorf("remove %s/%s: %w", req.Namespace, req.Subscription, err)
	}
	return res, nil
}
