package apply

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/render"
)

const etcdCatalog = "../../examples/catalogs/operatorhub/etcd"

var (
	etcdOnce sync.Once
	etcdCat  *catalog.Catalog
	etcdErr  error
)

// etcdHop renders an etcd bundle of the example catalog for an
// OwnNamespace install in ns, as `olmops plan` would.
func etcdHop(tb testing.TB, ns, bundle string) Hop {
	tb.Helper()
	etcdOnce.Do(func() { etcdCat, etcdErr = catalog.LoadDir(context.Background(), etcdCatalog, "operatorhub") })
	if etcdErr != nil {
		tb.Fatal(etcdErr)
	}
	b, err := render.FromCatalog(etcdCat.Bundle("etcd", bundle))
	if err != nil {
		tb.Fatal(err)
	}
	res, err := render.Render(b, render.Options{Namespace: ns, TargetNamespaces: []string{ns}})
	if err != nil {
		tb.Fatal(err)
	}
	return Hop{Bundle: bundle, Objects: res.Objects}
}

// without returns hop less the objects of kind named name.
func without(hop Hop, kind, name string) Hop {
	hop.Objects = slices.DeleteFunc(slices.Clone(hop.Objects), func(o *unstructured.Unstructured) bool {
		return o.GetKind() == kind && o.GetName() == name
	})
	return hop
}

// testApplier waits briefly, so that a hop that never becomes healthy
// fails a test in a second rather than minutes.
func testApplier(c client.Client) *Applier {
	return &Applier{Client: c, HealthTimeout: 10 * time.Second, EstablishTimeout: 10 * time.Second, PollInterval: 20 * time.Millisecond}
}

// rollout plays the Deployment controller envtest lacks, for ns, until
// the test ends.
func rollout(tb testing.TB, env *kubetest.Env, ns string) {
	tb.Cleanup(kubetest.Rollout(context.Background(), env.Client, ns, 10*time.Millisecond))
}

// get reads an object of gvk, failing the test unless found.
func get(tb testing.TB, c client.Reader, gvk schema.GroupVersionKind, ns, name string) *unstructured.Unstructured {
	tb.Helper()
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	if err := c.Get(tb.Context(), client.ObjectKey{Namespace: ns, Name: name}, obj); err != nil {
		tb.Fatalf("get %s %s/%s: %v", gvk.Kind, ns, name, err)
	}
	return obj
}

var (
	deploymentGVK = schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}
	crdGVK        = schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}
	etcdCRD       = "etcdclusters.etcd.database.coreos.com"
)

// widgetHop is a CRD of a group unique to ns and a custom resource of its
// kind, which can only be applied once the CRD is served.
func widgetObjects(ns string) (crd, widget *unstructured.Unstructured) {
	group := ns + ".apply.olmops.io"
	crd = &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "widgets." + group},
		"spec": map[string]any{
			"group": group, "scope": "Namespaced",
			"names": map[string]any{"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
			"versions": []any{map[string]any{
				"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
			}},
		},
	}}
	widget = &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": group + "/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "namespace": ns},
		"spec":     map[string]any{"size": int64(3)},
	}}
	return crd, widget
}

// managedBy reports whether manager applied obj.
func managedBy(obj *unstructured.Unstructured, manager string) bool {
	return slices.ContainsFunc(obj.GetManagedFields(), func(m metav1.ManagedFieldsEntry) bool {
		return m.Manager == manager && m.Operation == metav1.ManagedFieldsOperationApply
	})
}

var (
	nsGVK = schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}
	saGVK = schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}
)

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}
