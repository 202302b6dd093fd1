package render_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"testing/fstest"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/render"
)

// A catalog bundle renders into the manifests OLM would create, here for
// an OwnNamespace install with a Subscription config.
func ExampleRender() {
	c, err := catalog.LoadDir(context.Background(), "../examples/catalogs/operatorhub/etcd", "operatorhub")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := render.FromCatalog(c.Bundle("etcd", "etcdoperator.v0.9.4"))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := render.Render(b, render.Options{
		Namespace:        "etcd-system",
		TargetNamespaces: []string{"etcd-system"},
		Config:           map[string]any{"env": []any{map[string]any{"name": "LOG_LEVEL", "value": "debug"}}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	files, err := render.Files(res.Objects)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		fmt.Println(name)
	}
	// Output:
	// clusterrole-etcdclusters.etcd.database.coreos.com-v1beta2-admin.yaml
	// clusterrole-etcdclusters.etcd.database.coreos.com-v1beta2-crdview.yaml
	// clusterrole-etcdclusters.etcd.database.coreos.com-v1beta2-edit.yaml
	// clusterrole-etcdclusters.etcd.database.coreos.com-v1beta2-view.yaml
	// customresourcedefinition-etcdclusters.etcd.database.coreos.com.yaml
	// deployment-etcd-operator.yaml
	// operatorcondition-etcdoperator.v0.9.4.yaml
	// role-etcd-etcd-operator.yaml
	// role-etcd-operator-condition.yaml
	// rolebinding-etcd-etcd-operator.yaml
	// rolebinding-etcd-operator-condition.yaml
	// serviceaccount-etcd-operator.yaml
}

// A cluster's overlay patches rendered objects; its kustomization never
// names them.
func ExampleOverlay() {
	c, err := catalog.LoadDir(context.Background(), "../examples/catalogs/operatorhub/etcd", "operatorhub")
	if err != nil {
		fmt.Println(err)
		return
	}
	b, err := render.FromCatalog(c.Bundle("etcd", "etcdoperator.v0.9.4"))
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := render.Render(b, render.Options{Namespace: "etcd-system", TargetNamespaces: []string{"etcd-system"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	overlay := fstest.MapFS{
		"overlays/etcd/kustomization.yaml": {Data: []byte("images:\n- name: quay.io/olmops-examples/etcd-operator\n  newName: mirror.internal/etcd-operator\n")},
	}
	objs, err := render.Overlay(res.Objects, overlay, "overlays/etcd")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, o := range objs {
		if o.GetKind() == "Deployment" {
			containers, _ := o.Object["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)
			fmt.Println(containers[0].(map[string]any)["image"])
		}
	}
	// Output:
	// mirror.internal/etcd-operator:v0.9.4
}
