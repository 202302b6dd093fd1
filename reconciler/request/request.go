// Package request is how a person asks the controllers for a pass now:
// Flux's reconcile.fluxcd.io/requestedAt annotation, which olmops
// reconcile (and flux-style tooling) sets, and the predicate that lets it
// through a watch that otherwise ignores everything but spec changes.
package request

import (
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/olmops/olmops/api/v1alpha1"
)

// Changed passes an update that changes the request annotation: a pass
// asked for now, though the spec did not change.
var Changed = predicate.Funcs{UpdateFunc: func(e event.UpdateEvent) bool {
	return Of(e.ObjectOld) != Of(e.ObjectNew)
}}

// Of is obj's request, "" when none was made.
func Of(obj client.Object) string {
	return obj.GetAnnotations()[v1alpha1.ReconcileRequestAnnotation]
}

// Pending reports whether obj carries a request that handled, the value
// its status last recorded, does not match.
func Pending(obj client.Object, handled string) bool {
	at := Of(obj)
	return at != "" && at != handled
}
