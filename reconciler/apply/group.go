package apply

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/render"
)

var (
	operatorGroupGVK = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v1", Kind: "OperatorGroup"}
	clusterRoleGVK   = schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}
)

// GroupResult is what ApplyGroup did.
type GroupResult struct {
	// Applied and Pruned count objects.
	Applied, Pruned int
	// Skipped says why the OperatorGroup itself was not applied: the
	// cluster serves no such kind (OLM is not installed), or the
	// namespace holds one olmops does not manage. "" when it was.
	Skipped string
}

// ApplyGroup makes the cluster hold, for namespace, the objects of its
// OperatorGroup (render.OperatorGroupObjects) and no other object labelled
// render.OperatorGroupLabel=namespace: with prune, what it labelled before
// and no longer wants is deleted (nil objs deletes them all, once the
// namespace has no plan left); without, it stays. The objects are the namespace's, not one plan's, so
// they are applied with the Applier's own client, after the namespace's
// plans, by server-side apply.
//
// The OperatorGroup itself is applied only where the cluster serves its
// kind, and never beside an OperatorGroup olmops does not manage: OLM
// allows one per namespace, and a second would fail every operator of
// the namespace. The ClusterRoles are applied either way; they name the
// APIs, which exist without OLM.
func (a *Applier) ApplyGroup(ctx context.Context, namespace string, objs []*unstructured.Unstructured, prune bool) (*GroupResult, error) {
	a = a.withDefaults()
	log := logr.FromContextOrDiscard(ctx).WithValues("operatorGroupOf", namespace)
	res := &GroupResult{}
	want := map[key]bool{}
	var errs []error
	for _, o := range objs {
		if o.GroupVersionKind() == operatorGroupGVK {
			if res.Skipped = a.groupBlocked(ctx, o); res.Skipped != "" {
				log.V(1).Info("OperatorGroup not applied", "reason", res.Skipped)
				continue
			}
		}
		want[entryOf(o).key()] = true
		out := o.DeepCopy()
		if err := a.Client.Apply(ctx, client.ApplyConfigurationFromUnstructured(out), client.FieldOwner(a.FieldOwner), client.ForceOwnership); err != nil {
			errs = append(errs, &objectError{obj: entryOf(o), err: err})
			continue
		}
		res.Applied++
	}
	if prune {
		errs = append(errs, a.pruneGroup(ctx, namespace, want, res)...)
	}
	if err := errors.Join(errs...); err != nil {
		return res, fmt.Errorf("OperatorGroup objects of %s: %w", namespace, err)
	}
	return res, nil
}

// pruneGroup deletes what olmops labelled as namespace's OperatorGroup
// objects and want no longer holds, counting it in res.
func (a *Applier) pruneGroup(ctx context.Context, namespace string, want map[key]bool, res *GroupResult) []error {
	labelled, err := a.labelledGroupObjects(ctx, namespace)
	if err != nil {
		return []error{err}
	}
	var errs []error
	for _, e := range labelled {
		if want[e.key()] {
			continue
		}
		deleted, err := a.delete(ctx, e)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if deleted {
			res.Pruned++
		}
	}
	return errs
}

// groupBlocked says why og may not be applied, "" when it may.
func (a *Applier) groupBlocked(ctx context.Context, og *unstructured.Unstructured) string {
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(operatorGroupGVK.GroupVersion().WithKind("OperatorGroupList"))
	err := a.Client.List(ctx, list, client.InNamespace(og.GetNamespace()))
	switch {
	case meta.IsNoMatchError(err):
		return "the cluster serves no OperatorGroup kind (OLM is not installed)"
	case err != nil:
		return "OperatorGroups could not be listed: " + err.Error()
	}
	for _, other := range list.Items {
		if other.GetName() != og.GetName() && !managed(&other) {
			return fmt.Sprintf("namespace %s already has OperatorGroup %s, which olmops does not manage: OLM allows one per namespace",
				og.GetNamespace(), other.GetName())
		}
	}
	return ""
}

// labelledGroupObjects lists what olmops labelled as namespace's
// OperatorGroup objects: ClusterRoles, and the OperatorGroup where the
// kind is served.
func (a *Applier) labelledGroupObjects(ctx context.Context, namespace string) ([]Entry, error) {
	sel := client.MatchingLabels{render.OperatorGroupLabel: namespace, render.ManagedByLabel: render.ManagedBy}
	var out []Entry
	for _, gvk := range []schema.GroupVersionKind{clusterRoleGVK, operatorGroupGVK} {
		list := &unstructured.UnstructuredList{}
		list.SetGroupVersionKind(gvk.GroupVersion().WithKind(gvk.Kind + "List"))
		opts := []client.ListOption{sel}
		if gvk == operatorGroupGVK {
			opts = append(opts, client.InNamespace(namespace))
		}
		err := a.Client.List(ctx, list, opts...)
		if meta.IsNoMatchError(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", gvk.Kind, err)
		}
		for i := range list.Items {
			e := entryOf(&list.Items[i])
			e.Group, e.Version, e.Kind = gvk.Group, gvk.Version, gvk.Kind
			out = append(out, e)
		}
	}
	return out, nil
}
