package reconciler

import (
	"context"
	"fmt"

	"github.com/olmops/olmops/api/v1alpha1"
)

// remove deletes the objects of subscriptions whose plan left the branch,
// when pruning is on; without it they stay in the cluster, unmanaged.
// A subscription whose objects could not all be deleted stays in the
// Outcome as Failed, with what is left, so the next pass tries again.
func (s *Syncer) remove(ctx context.Context, t Target, set *planSet, out *Outcome) error {
	for _, prev := range leftBranch(set, t.Previous) {
		sub := prev.Namespace + "/" + prev.Name
		if !t.Prune || len(prev.Inventory) == 0 {
			s.remember(t.ID, prev.Namespace, prev.Name, nil)
			t.event(false, "Orphaned", fmt.Sprintf("%s: its plan left the branch; pruning is off, so its %d objects stay", sub, len(prev.Inventory)))
			continue
		}
		inv := s.inventory(t.ID, prev)
		res, err := s.Applier.Remove(ctx, set.removal(t.Cluster, prev, inv))
		if err != nil && transient(err) {
			return err
		}
		left := refs(res.Inventory)
		if err == nil {
			out.Removed++
			s.remember(t.ID, prev.Namespace, prev.Name, nil)
			t.event(false, "Removed", fmt.Sprintf("%s: its plan left the branch; %d objects deleted, %d kept (CustomResourceDefinitions)", sub, res.Pruned, len(left)))
			continue
		}
		s.remember(t.ID, prev.Namespace, prev.Name, res.Inventory)
		t.event(true, "PruneFailed", fmt.Sprintf("%s: %v", sub, err))
		st := prev
		st.Phase, st.Message, st.Inventory = v1alpha1.SubscriptionFailed, "remove: "+err.Error(), left
		out.Subscriptions = append(out.Subscriptions, st)
		out.Settled = false
		if severity(v1alpha1.PruneFailedReason) > severity(out.Reason) {
			out.Reason, out.Message = v1alpha1.PruneFailedReason, sub+": "+st.Message
		}
	}
	return nil
}

// leftBranch are the subscriptions of the previous pass whose plan is no
// longer on the branch.
func leftBranch(set *planSet, previous []v1alpha1.SubscriptionStatus) []v1alpha1.SubscriptionStatus {
	planned := map[[2]string]bool{}
	for _, p := range set.plans {
		planned[[2]string{p.namespace, p.name}] = true
	}
	var out []v1alpha1.SubscriptionStatus
	for _, prev := range previous {
		if !planned[[2]string{prev.Namespace, prev.Name}] {
			out = append(out, prev)
		}
	}
	return out
}
