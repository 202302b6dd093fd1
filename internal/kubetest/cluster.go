package kubetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	crdPollInterval = 50 * time.Millisecond
	// crdTimeout bounds CreateCRD when the caller's ctx has no nearer
	// deadline; an API server establishes a CRD in well under a second.
	crdTimeout = 30 * time.Second
)

// NewNamespace creates a namespace with a unique name, so that tests
// sharing a control plane do not see each other's objects, and returns the
// name. It is never deleted: envtest runs no namespace controller to finish
// a deletion, and the whole control plane goes away after the tests.
func (e *Env) NewNamespace(t testing.TB) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "test-"}}
	if err := e.Client.Create(t.Context(), ns); err != nil {
		t.Fatalf("kubetest: create namespace: %v", err)
	}
	return ns.Name
}

// CreateCRD creates crd and waits until the API server serves its resource
// (condition Established), for at most 30 s or until ctx ends.
func (e *Env) CreateCRD(ctx context.Context, crd *apiextensionsv1.CustomResourceDefinition) error {
	if err := e.Client.Create(ctx, crd); err != nil {
		return fmt.Errorf("kubetest: create CRD %s: %w", crd.Name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, crdTimeout)
	defer cancel()
	return WaitEstablished(ctx, e.Client, crd.Name)
}

// WaitEstablished polls the CRD called name until its Established
// condition is True, and fails when ctx ends first.
func WaitEstablished(ctx context.Context, r client.Reader, name string) error {
	var crd apiextensionsv1.CustomResourceDefinition
	err := wait.PollUntilContextCancel(ctx, crdPollInterval, true, func(ctx context.Context) (bool, error) {
		if err := r.Get(ctx, client.ObjectKey{Name: name}, &crd); err != nil {
			return false, err
		}
		return established(&crd), nil
	})
	if err != nil {
		return fmt.Errorf("kubetest: CRD %s not established: %w", name, err)
	}
	return nil
}

func established(crd *apiextensionsv1.CustomResourceDefinition) bool {
	for _, c := range crd.Status.Conditions {
		if c.Type == apiextensionsv1.Established {
			return c.Status == apiextensionsv1.ConditionTrue
		}
	}
	return false
}
