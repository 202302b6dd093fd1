package v1alpha1

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Suspended is True, saying what stops, while spec.suspend is; resuming
// takes the condition away and leaves the others be.
func TestMarkSuspended(t *testing.T) {
	conds := []metav1.Condition{{Type: ReadyCondition, Status: metav1.ConditionTrue, Reason: SucceededReason}}
	if !MarkSuspended(&conds, true, 3, "fetched or applied") {
		t.Fatal("suspended: MarkSuspended = false")
	}
	c := meta.FindStatusCondition(conds, SuspendedCondition)
	if c == nil || c.Status != metav1.ConditionTrue || c.Reason != SuspendedReason || c.ObservedGeneration != 3 ||
		c.Message != "spec.suspend is true: nothing is fetched or applied until it is false" {
		t.Fatalf("Suspended = %+v", c)
	}
	if MarkSuspended(&conds, false, 4, "fetched or applied") {
		t.Fatal("resumed: MarkSuspended = true")
	}
	if len(conds) != 1 || conds[0].Type != ReadyCondition {
		t.Errorf("conditions after resume: %+v", conds)
	}
}
