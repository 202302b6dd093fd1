package planning

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
)

// recordHolds sets PromotionHeld from the subscriptions the pass's
// promotion kept where they are: True naming each, the wave's stops
// first (PromotionStopped, with a Warning Event once per new message),
// absent when nothing is held. nextPromotionTime is the first end of a
// soak that alone holds one. A pass that planned no cluster leaves both
// as they were. It returns how many are held.
func (r *Reconciler) recordHolds(p *pass) int {
	if p.report == nil {
		return 0
	}
	var (
		stopped, waiting []string
		next             time.Time
	)
	for _, c := range p.report.Clusters {
		for _, h := range c.Holds {
			if !h.Until.IsZero() && (next.IsZero() || h.Until.Before(next)) {
				next = h.Until
			}
			line := fmt.Sprintf("%s/%s: %s stays: %s", c.Name, h.Key, h.Package, h.Message)
			if h.Stopped {
				stopped = append(stopped, line)
			} else {
				waiting = append(waiting, line)
			}
		}
	}
	obj := p.obj
	obj.Status.NextPromotionTime = nil
	if !next.IsZero() {
		obj.Status.NextPromotionTime = &metav1.Time{Time: next}
	}
	if len(stopped)+len(waiting) == 0 {
		meta.RemoveStatusCondition(&obj.Status.Conditions, v1alpha1.PromotionHeldCondition)
		return 0
	}
	reason := v1alpha1.PromotionWaitingReason
	if len(stopped) > 0 {
		reason = v1alpha1.PromotionStoppedReason
	}
	msg := strings.Join(append(stopped, waiting...), "; ")
	was := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.PromotionHeldCondition)
	setCondition(obj, v1alpha1.PromotionHeldCondition, metav1.ConditionTrue, reason, msg)
	if reason == v1alpha1.PromotionStoppedReason && (was == nil || was.Message != v1alpha1.CutMessage(msg)) {
		r.emit(obj, corev1.EventTypeWarning, reason, msg)
	}
	return len(stopped) + len(waiting)
}

// untilPromotion shortens wait to the end of the first soak, so that a
// follower moves when its soak ends rather than at the next interval.
// A soak that already ended gets a pass at once (in a second: the
// evidence is read again, and must still hold).
func untilPromotion(obj *v1alpha1.Planner, wait time.Duration, now time.Time) time.Duration {
	t := obj.Status.NextPromotionTime
	if t == nil {
		return wait
	}
	return min(wait, max(t.Sub(now), time.Second))
}
