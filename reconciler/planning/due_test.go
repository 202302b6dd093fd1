package planning

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
)

func TestNotDueFor(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	planned := func(edit func(*v1alpha1.Planner)) *v1alpha1.Planner {
		obj := &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Generation: 3},
			Spec: v1alpha1.PlannerSpec{Interval: metav1.Duration{Duration: 10 * time.Minute}},
			Status: v1alpha1.PlannerStatus{ObservedGeneration: 3, LastPlannedCommit: "abc",
				LastPlannedTime: &metav1.Time{Time: now.Add(-4 * time.Minute)},
				Conditions:      []metav1.Condition{{Type: v1alpha1.ReadyCondition, Status: metav1.ConditionTrue}}},
		}
		if edit != nil {
			edit(obj)
		}
		return obj
	}
	tests := []struct {
		name string
		obj  *v1alpha1.Planner
		head string
		want time.Duration
	}{
		{"planned, within the interval", planned(nil), "abc", 6 * time.Minute},
		{"a new head", planned(nil), "def", 0},
		{"a new spec", planned(func(o *v1alpha1.Planner) { o.Generation = 4 }), "abc", 0},
		{"the last pass failed", planned(func(o *v1alpha1.Planner) { o.Status.Conditions[0].Status = metav1.ConditionFalse }), "abc", 0},
		{"never planned", planned(func(o *v1alpha1.Planner) { o.Status.LastPlannedTime = nil }), "abc", 0},
		{"the interval passed", planned(func(o *v1alpha1.Planner) { o.Status.LastPlannedTime.Time = now.Add(-11 * time.Minute) }), "abc", 0},
		{"no interval: the default", planned(func(o *v1alpha1.Planner) { o.Spec.Interval.Duration = 0 }), "abc", 6 * time.Minute},
		{"a soak ends before the interval", planned(func(o *v1alpha1.Planner) { o.Status.NextPromotionTime = &metav1.Time{Time: now.Add(time.Minute)} }), "abc", time.Minute},
		{"a soak ended", planned(func(o *v1alpha1.Planner) { o.Status.NextPromotionTime = &metav1.Time{Time: now.Add(-time.Second)} }), "abc", 0},
		{"a soak ends after the interval", planned(func(o *v1alpha1.Planner) { o.Status.NextPromotionTime = &metav1.Time{Time: now.Add(time.Hour)} }), "abc", 6 * time.Minute},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := notDueFor(tt.obj, tt.head, now); got != tt.want {
				t.Errorf("notDueFor = %v, want %v", got, tt.want)
			}
		})
	}
}
