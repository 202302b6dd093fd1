package apply

import (
	"context"
	"fmt"
	"reflect"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Change is what applying a plan would do to one object.
type Change struct {
	// Entry names the object.
	Entry Entry
	// Live is the object in the cluster; nil when the apply creates it.
	Live *unstructured.Unstructured
	// Applied is the object as the API server would hold it after the
	// apply (its dry run), or, when Live is nil, the manifest as it would
	// be sent; nil when the apply prunes the object. Both are stripped of
	// status and IgnoredMetadata.
	Applied *unstructured.Unstructured
}

// IgnoredMetadata are the metadata fields Diff leaves out of the
// comparison: the server sets them on every write. status is left out too.
var IgnoredMetadata = []string{"managedFields", "resourceVersion", "generation", "uid", "creationTimestamp"}

// Diff says what applying req's target (its last hop) would change,
// without writing anything: each object is prepared exactly as Apply sends
// it (labels, hash annotation, serving certificates), and an object that
// exists is sent as a server-side apply dry run with the Applier's field
// owner and forced ownership, so that the result is what the API server
// would keep, admission and defaulting included. Objects the apply would
// leave as they are are not returned. The objects of req.Inventory the
// target no longer holds are returned as deletions (Applied nil), unless
// req.KeepRemoved; CustomResourceDefinitions only with req.PruneCRDs.
// Upgradeable=False holds are not considered.
func (a *Applier) Diff(ctx context.Context, req Request) ([]Change, error) {
	if err := req.validate(); err != nil {
		return nil, fmt.Errorf("diff %s/%s: %w", req.Namespace, req.Subscription, err)
	}
	r := &run{a: a.withDefaults(), req: req, res: &Result{}}
	hop := req.Hops[len(req.Hops)-1]
	objs, err := r.a.issuer().Prepare(ctx, req.Namespace, hop.Objects)
	if err != nil {
		return nil, err
	}
	h := &hopApply{run: r, provided: providedKinds(objs)}
	var changes []Change
	keep := map[key]bool{}
	for _, m := range objs {
		c, err := h.diffObject(ctx, m, keep)
		if err != nil {
			return nil, fmt.Errorf("diff %s/%s %s: %w", req.Namespace, req.Subscription, hop.Bundle, err)
		}
		if c != nil {
			changes = append(changes, *c)
		}
	}
	if req.KeepRemoved {
		return changes, nil
	}
	deleted, err := r.a.deletions(ctx, normalize(req.Inventory), keep, req.PruneCRDs)
	if err != nil {
		return nil, fmt.Errorf("diff %s/%s %s: %w", req.Namespace, req.Subscription, hop.Bundle, err)
	}
	return append(changes, deleted...), nil
}

// diffObject compares one manifest with its live copy; nil means no
// change. It adds the object's identity to keep, which prune spares.
func (h *hopApply) diffObject(ctx context.Context, manifest *unstructured.Unstructured, keep map[key]bool) (*Change, error) {
	obj, err := prepare(manifest)
	if err != nil {
		return nil, err
	}
	if err := h.place(obj); err != nil && !meta.IsNoMatchError(err) {
		return nil, fmt.Errorf("%s: %w", entryOf(obj), err)
	}
	keep[entryOf(obj).key()] = true
	live := &unstructured.Unstructured{}
	live.SetGroupVersionKind(obj.GroupVersionKind())
	err = h.a.Reader.Get(ctx, client.ObjectKeyFromObject(obj), live)
	switch {
	case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
		// A create needs no dry run to be shown, and its namespace or
		// kind may not exist yet for one to pass.
		return &Change{Entry: entryOf(obj), Applied: withoutServerFields(obj)}, nil
	case err != nil:
		return nil, fmt.Errorf("read %s: %w", entryOf(obj), err)
	}
	dry, err := h.apply(ctx, obj, client.DryRunAll)
	if err != nil {
		return nil, err
	}
	before, after := withoutServerFields(live), withoutServerFields(dry)
	if reflect.DeepEqual(before.Object, after.Object) {
		return nil, nil
	}
	return &Change{Entry: entryOf(obj), Live: before, Applied: after}, nil
}

// withoutServerFields is a copy of obj without status and IgnoredMetadata.
func withoutServerFields(obj *unstructured.Unstructured) *unstructured.Unstructured {
	out := obj.DeepCopy()
	delete(out.Object, "status")
	for _, f := range IgnoredMetadata {
		unstructured.RemoveNestedField(out.Object, "metadata", f)
	}
	return out
}
