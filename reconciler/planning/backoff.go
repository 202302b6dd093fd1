package planning

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/olmops/olmops/api/v1alpha1"
)

// resume continues the backoff that the status records, when this
// controller has not seen the Planner fail yet: after a restart, or on a
// new leader, the in-memory backoff starts empty. It counts the recorded
// failures into the backoff, so that the next wait and the PushRefused
// count go on from there, and says how long to wait before the next
// attempt the previous controller announced; 0 when it is due, or when a
// person asked for a pass.
func (r *Reconciler) resume(req ctrl.Request, obj *v1alpha1.Planner, requested bool, now time.Time) time.Duration {
	st := &obj.Status
	known := r.backoff().NumRequeues(req)
	if st.ConsecutiveFailures <= 0 || known >= int(st.ConsecutiveFailures) {
		return 0
	}
	for range int(st.ConsecutiveFailures) - known {
		r.backoff().When(req) // counts one failure; the wait it returns is past
	}
	if requested || st.NextAttemptTime == nil || !now.Before(st.NextAttemptTime.Time) {
		return 0
	}
	return st.NextAttemptTime.Sub(now)
}

// recordFailure counts a failed pass in the status: the count and the
// time of the next attempt survive the controller.
func recordFailure(st *v1alpha1.PlannerStatus, failures int, next time.Time) {
	st.ConsecutiveFailures = int32(min(failures, 1<<30))
	st.NextAttemptTime = &metav1.Time{Time: next}
}

// clearFailures ends the count: the pass succeeded or stalled.
func clearFailures(st *v1alpha1.PlannerStatus) {
	st.ConsecutiveFailures, st.NextAttemptTime = 0, nil
}
