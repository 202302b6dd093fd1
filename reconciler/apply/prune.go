package apply

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/reconciler/render"
)

// prune deletes the inventory's objects that the hop just applied does
// not hold, dependents first (reverse stage order). Namespaces leave the
// inventory but stay; CRDs stay in both unless PruneCRDs. An entry whose
// deletion fails stays, so that the next apply tries again.
func (r *run) prune(ctx context.Context, live []*unstructured.Unstructured) error {
	keep := map[key]bool{}
	for _, l := range live {
		keep[entryOf(l).key()] = true
	}
	var doomed []Entry
	drop := map[key]bool{}
	for _, e := range r.res.Inventory {
		switch gk := e.GroupVersionKind().GroupKind(); {
		case keep[e.key()]:
		case gk == namespaceGK:
			drop[e.key()] = true
		case gk == crdGK && !r.req.PruneCRDs:
		default:
			doomed = append(doomed, e)
		}
	}
	slices.SortStableFunc(doomed, func(a, b Entry) int {
		return cmp.Compare(stageOf(b.GroupVersionKind().GroupKind()), stageOf(a.GroupVersionKind().GroupKind()))
	})
	var errs []error
	for _, e := range doomed {
		deleted, err := r.delete(ctx, e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		drop[e.key()] = true
		if deleted {
			r.res.Pruned++
		}
	}
	r.res.Inventory = r.res.Inventory.without(drop)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	return nil
}

// delete deletes the object e names with background propagation, unless
// it is gone or no longer labelled as olmops'. The UID precondition keeps
// a look-alike created since the read from being deleted.
func (r *run) delete(ctx context.Context, e Entry) (bool, error) {
	log := logr.FromContextOrDiscard(ctx)
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(e.GroupVersionKind())
	err := r.a.Client.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: e.Name}, obj)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read %s: %w", e, err)
	case obj.GetLabels()[render.ManagedByLabel] != render.ManagedBy:
		log.Info("not pruned: no longer managed by olmops", "object", e.String())
		return false, nil
	}
	err = r.a.Client.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground),
		client.Preconditions{UID: new(obj.GetUID())})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete %s: %w", e, err)
	}
	log.V(1).Info("pruned", "object", e.String())
	return true, nil
}
