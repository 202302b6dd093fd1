package reconciler

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/olmops/olmops/api/v1alpha1"
)

// logPass writes the one line a pass logs at the default verbosity: what
// it did, from the status it recorded. Detail (each apply, each prune) is
// V(1) and below. The keys controller-runtime already put on the logger
// (controller, name, namespace, reconcileID, repository) are not
// repeated: a JSON log with a key twice is read differently by every
// pipeline.
func logPass(ctx context.Context, obj *v1alpha1.Repository, out *Outcome, err error, took time.Duration, next time.Duration) {
	kv := []any{"commit", short(obj.Status.LastFetchedCommit)}
	if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition); c != nil {
		kv = append(kv, "ready", string(c.Status), "reason", c.Reason)
	}
	if out != nil {
		installed, held, failed := phases(out.Subscriptions)
		kv = append(kv, "plans", len(out.Subscriptions), "changed", out.Changed, "installed", installed,
			"held", held, "failed", failed, "removed", out.Removed)
	}
	kv = append(kv, "duration", took.Round(time.Millisecond).String())
	if err == nil && next > 0 {
		kv = append(kv, "next", next.String())
	}
	// A failed pass is logged once more, with its error, by
	// controller-runtime (and retried with backoff): no error key here.
	logr.FromContextOrDiscard(ctx).Info("reconciled", kv...)
}

// phases counts the subscriptions installed, held and failed.
func phases(subs []v1alpha1.SubscriptionStatus) (installed, held, failed int) {
	for _, st := range subs {
		switch st.Phase {
		case v1alpha1.SubscriptionInstalled:
			installed++
		case v1alpha1.SubscriptionHeld:
			held++
		case v1alpha1.SubscriptionFailed:
			failed++
		}
	}
	return installed, held, failed
}

// short is a commit as people read it.
func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}
