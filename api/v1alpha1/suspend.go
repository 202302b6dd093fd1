package v1alpha1

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MarkSuspended keeps the SuspendedCondition of conds in step with
// spec.suspend, for the Repository and the Planner alike: True while
// suspended, saying that nothing is what (e.g. "fetched or applied")
// until it is false; absent otherwise. It returns suspended, so that the
// controller skips its pass.
func MarkSuspended(conds *[]metav1.Condition, suspended bool, generation int64, what string) bool {
	if !suspended {
		meta.RemoveStatusCondition(conds, SuspendedCondition)
		return false
	}
	meta.SetStatusCondition(conds, metav1.Condition{
		Type: SuspendedCondition, Status: metav1.ConditionTrue, Reason: SuspendedReason,
		Message: "spec.suspend is true: nothing is " + what + " until it is false", ObservedGeneration: generation,
	})
	return true
}
