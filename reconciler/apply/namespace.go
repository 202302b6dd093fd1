package apply

import (
	"context"
	"fmt"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/render"
)

// ensureNamespace creates the install namespace when it is missing,
// labelled as managed by olmops. It is not in the inventory: deleting it
// would delete whatever else lives there.
func (r *run) ensureNamespace(ctx context.Context) error {
	if r.nsReady {
		return nil
	}
	if err := r.createNamespace(ctx); err != nil {
		return err
	}
	r.nsReady = true
	return nil
}

func (r *run) createNamespace(ctx context.Context) error {
	ns := &unstructured.Unstructured{}
	ns.SetAPIVersion("v1")
	ns.SetKind("Namespace")
	err := r.a.Reader.Get(ctx, client.ObjectKey{Name: r.req.Namespace}, ns)
	if err == nil || !apierrors.IsNotFound(err) {
		return err
	}
	ns.SetName(r.req.Namespace)
	ns.SetLabels(map[string]string{render.ManagedByLabel: render.ManagedBy})
	err = r.a.writer.Create(ctx, ns, client.FieldOwner(r.a.FieldOwner))
	if apierrors.IsAlreadyExists(err) {
		return nil // a cache that selects olmops' labels does not see it
	}
	if err != nil {
		return fmt.Errorf("create namespace %s: %w", r.req.Namespace, err)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("created namespace", "object", "Namespace/"+r.req.Namespace)
	return nil
}
