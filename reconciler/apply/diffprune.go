package apply

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// DiffRemove says what Remove would delete for req, without deleting
// anything: the objects of the inventory that exist and still carry
// olmops' label, CustomResourceDefinitions only with PruneCRDs.
func (a *Applier) DiffRemove(ctx context.Context, req RemoveRequest) ([]Change, error) {
	if req.Namespace == "" || req.Subscription == "" {
		return nil, fmt.Errorf("diff remove %s/%s: namespace and subscription are required", req.Namespace, req.Subscription)
	}
	changes, err := a.withDefaults().deletions(ctx, normalize(req.Inventory), req.Shared.keys(), req.PruneCRDs)
	if err != nil {
		return nil, fmt.Errorf("diff remove %s/%s: %w", req.Namespace, req.Subscription, err)
	}
	return changes, nil
}

// deletions are the Changes a sweep of inv keeping keep would make: a
// deletion is a Change whose Applied is nil. An entry already gone, or
// whose label was taken off by hand, is no change, as delete leaves it.
func (a *Applier) deletions(ctx context.Context, inv Inventory, keep map[key]bool, pruneCRDs bool) ([]Change, error) {
	doomed, _ := doomed(inv, keep, pruneCRDs)
	var out []Change
	for _, e := range doomed {
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(e.GroupVersionKind())
		err := a.Reader.Get(ctx, client.ObjectKey{Namespace: e.Namespace, Name: e.Name}, live)
		switch {
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("read %s: %w", e, err)
		case !managed(live):
			continue
		}
		out = append(out, Change{Entry: e, Live: withoutServerFields(live)})
	}
	return out, nil
}
