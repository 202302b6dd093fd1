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

	"github.com/olmops/olmops/render"
)

// prune deletes the inventory's objects that the hop just applied does
// not hold, or with KeepRemoved only forgets them.
func (r *run) prune(ctx context.Context, live []*unstructured.Unstructured) error {
	keep := r.req.Shared.keys()
	for _, l := range live {
		keep[entryOf(l).key()] = true
	}
	if r.req.KeepRemoved {
		r.res.Inventory = slices.DeleteFunc(slices.Clone(r.res.Inventory), func(e Entry) bool { return !keep[e.key()] })
		return nil
	}
	inv, pruned, err := r.a.sweep(ctx, r.res.Inventory, keep, r.req.PruneCRDs)
	r.res.Inventory, r.res.Pruned = inv, r.res.Pruned+pruned
	if err != nil {
		return fmt.Errorf("prune: %w", err)
	}
	return nil
}

// sweep deletes the entries of inv whose identity is not in keep,
// dependents first (reverse stage order), and returns what remains of inv
// and how many objects it deleted. Namespaces leave the inventory but
// stay; CRDs stay in both unless pruneCRDs. An entry whose deletion fails
// stays, so that the next call tries again.
func (a *Applier) sweep(ctx context.Context, inv Inventory, keep map[key]bool, pruneCRDs bool) (Inventory, int, error) {
	doomed, drop := doomed(inv, keep, pruneCRDs)
	var errs []error
	n := 0
	for _, e := range doomed {
		deleted, err := a.delete(ctx, e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		drop[e.key()] = true
		if deleted {
			n++
		}
	}
	return inv.without(drop), n, errors.Join(errs...)
}

// doomed are the entries of inv a sweep deletes, dependents first
// (reverse stage order), and drop the Namespaces it only forgets: one
// decision for sweep and for Diff's preview of it.
func doomed(inv Inventory, keep map[key]bool, pruneCRDs bool) ([]Entry, map[key]bool) {
	var out []Entry
	drop := map[key]bool{}
	for _, e := range inv {
		switch gk := e.GroupVersionKind().GroupKind(); {
		case keep[e.key()]:
		case gk == namespaceGK:
			drop[e.key()] = true
		case gk == crdGK && !pruneCRDs:
		default:
			out = append(out, e)
		}
	}
	slices.SortStableFunc(out, func(a, b Entry) int {
		return cmp.Compare(stageOf(b.GroupVersionKind().GroupKind()), stageOf(a.GroupVersionKind().GroupKind()))
	})
	return out, drop
}

// managed tells an object olmops may delete: one it still labels as its
// own. A label removed by hand hands the object over.
func managed(obj metav1.Object) bool {
	return obj.GetLabels()[render.ManagedByLabel] == render.ManagedBy
}

// delete deletes the object e names with background propagation, unless
// it is gone or no longer labelled as olmops'. The UID precondition keeps
// a look-alike created since the read from being deleted.
func (a *Applier) delete(ctx context.Context, e Entry) (bool, error) {
	log := logr.FromContextOrDiscard(ctx)
	obj := &metav1.PartialObjectMetadata{}
	obj.SetGroupVersionKind(e.GroupVersionKind())
	err := a.writer.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: e.Name}, obj)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("read %s: %w", e, err)
	case !managed(obj):
		log.V(1).Info("not deleted: no longer managed by olmops", "object", e.String())
		return false, nil
	}
	err = a.writer.Delete(ctx, obj, client.PropagationPolicy(metav1.DeletePropagationBackground),
		client.Preconditions{UID: new(obj.GetUID())})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("delete %s: %w", e, err)
	}
	log.V(1).Info("deleted", "object", e.String())
	return true, nil
}
