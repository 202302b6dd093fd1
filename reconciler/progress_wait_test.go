package reconciler

import (
	"slices"
	"testing"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/reconciler/apply"
)

// A health poll's verdict goes to Target.Waiting, worded for a display,
// never to Target.Event: the controller records events, and one per poll
// would flood them. A hop that became healthy is an event, as before.
func TestProgressHealthWaitIsNoEvent(t *testing.T) {
	var events, waits []string
	tg := Target{
		Event:   func(e Event) { events = append(events, e.Reason+": "+e.Message) },
		Waiting: func(e Event) { waits = append(waits, e.Reason+": "+e.Message) },
	}
	p := &loadedPlan{namespace: "etcd-system", name: "etcd"}
	s := &Syncer{}
	wait := apply.Result{Phase: commitstatus.Installed, Hop: 1, Hops: 2, Bundle: "etcdoperator.v0.9.2",
		Reason: "Deployment etcd-operator: InProgress: Available: 0/1"}
	s.progress(t.Context(), tg, p, wait)
	done := wait
	done.Healthy, done.Reason = true, ""
	s.progress(t.Context(), tg, p, done)

	wantWaits := []string{"HealthWait: etcd-system/etcd: applying etcdoperator.v0.9.2 (hop 1/2): Deployment etcd-operator: InProgress: Available: 0/1"}
	wantEvents := []string{"HopInstalled: etcd-system/etcd: etcdoperator.v0.9.2 installed and healthy (hop 1/2)"}
	if !slices.Equal(waits, wantWaits) || !slices.Equal(events, wantEvents) {
		t.Errorf("waits %q\nwant  %q\nevents %q\nwant   %q", waits, wantWaits, events, wantEvents)
	}
	// Without Waiting, a verdict is dropped: nothing else hears it.
	tg.Waiting = nil
	s.progress(t.Context(), tg, p, wait)
	if len(events) != 1 {
		t.Errorf("a verdict became an event: %q", events)
	}
}
