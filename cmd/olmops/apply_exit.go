//go:build !olmops_cli

package main

import (
	"fmt"
	"io"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/reconciler"
)

// applyVerdict is the exit of `olmops apply` once the outcome is printed:
// nil only when every plan is installed and healthy and nothing failed to
// be pruned. A CI job reads the code alone, so a pass that held a plan
// back must not say "done": each plan not done is named on w (standard
// error), with its reason. A failure is errFindings (a new commit or a
// fix is needed); a hold with no failure is errHeld (the cluster or its
// operator must change first: Upgradeable=False, missing permissions, a
// dependency not installed).
func applyVerdict(w io.Writer, cluster string, out *reconciler.Outcome) error {
	held, failed := 0, 0
	for _, st := range out.Subscriptions {
		switch st.Phase {
		case v1alpha1.SubscriptionInstalled:
			continue
		case v1alpha1.SubscriptionHeld:
			held++
		default:
			failed++
		}
		fmt.Fprintf(w, "%s: %s/%s: %s\n", st.Phase, st.Namespace, st.Name, st.Message)
	}
	switch {
	case failed > 0 || !out.Settled:
		fmt.Fprintf(w, "cluster %s: %d of %d plans failed, %d held: %s\n", cluster, failed, len(out.Subscriptions), held, out.Reason)
		return errFindings
	case out.Reason == v1alpha1.PruneFailedReason:
		// Installed and healthy, but what left the plan is still there.
		fmt.Fprintf(w, "cluster %s: %s: %s\n", cluster, out.Reason, out.Message)
		return errFindings
	case held > 0:
		fmt.Fprintf(w, "cluster %s: %d of %d plans held, not applied: %s\n", cluster, held, len(out.Subscriptions), out.Reason)
		return errHeld
	}
	return nil
}
