package reconciler

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/reconciler/apply"
)

// A service account that may not apply its plan holds the subscription,
// with the reason MissingPermissions, the missing rules in its message,
// the commit status and an event; it is not a failure, and the Ready
// reason says what to grant.
func TestMissingPermissionsHold(t *testing.T) {
	const why = "etcdoperator.v0.10.0 not applied: service account etcd-system/etcd-installer may not: create deployments.apps/etcd-operator in etcd-system"
	res := &apply.Result{Phase: commitstatus.Held, Hop: 1, Hops: 1, Bundle: "etcdoperator.v0.10.0", Reason: why,
		MissingPermissions: []string{"create deployments.apps/etcd-operator in etcd-system"}}
	r := &subResult{plan: &loadedPlan{}, report: res.Report()}
	r.phase(res, nil)
	if r.status.Phase != v1alpha1.SubscriptionHeld || r.reason != v1alpha1.MissingPermissionsReason || r.status.Message != why {
		t.Errorf("phase %s, reason %s, message %q", r.status.Phase, r.reason, r.status.Message)
	}
	// Commit statuses are short (GitHub keeps 140 characters): the
	// rules are cut there, and listed whole in the status and the event.
	if got, want := r.report.Description(), "held at etcdoperator.v0.10.0 · "+why[:60]; !strings.HasPrefix(got, want) {
		t.Errorf("commit status %q, want it to start with %q", got, want)
	}
	out := outcome([]*subResult{r})
	if out.Reason != v1alpha1.MissingPermissionsReason || out.Stalled || !out.Waiting {
		t.Errorf("outcome %s, stalled %v, waiting %v: want MissingPermissions, looked at again", out.Reason, out.Stalled, out.Waiting)
	}

	var events []Event
	tg := Target{Event: func(e Event) { events = append(events, e) }}
	(&Syncer{}).progress(t.Context(), tg, &loadedPlan{namespace: "etcd-system", name: "etcd"}, *res)
	if len(events) != 1 || !events[0].Warning || events[0].Reason != v1alpha1.MissingPermissionsReason ||
		events[0].Message != "etcd-system/etcd: "+why {
		t.Errorf("events %+v", events)
	}
}
