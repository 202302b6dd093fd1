package apply

import (
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/render"
	"github.com/olmops/olmops/subscription"
)

// Where OLM is installed, a namespace's OperatorGroup is applied with its
// olm.providedAPIs, unless the namespace holds an OperatorGroup of its
// own (a second would fail every CSV there); with nil objects, what was
// labelled for the namespace is deleted.
func TestApplyGroup(t *testing.T) {
	env := kube.Env(t)
	ctx := t.Context()
	a := testApplier(env.Client)
	if err := env.CreateCRD(ctx, operatorGroupCRD()); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	og := func(ns, name string) (*unstructured.Unstructured, error) {
		o := &unstructured.Unstructured{}
		o.SetGroupVersionKind(operatorGroupGVK)
		return o, env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, o)
	}
	ours, theirs := env.NewNamespace(t), env.NewNamespace(t)
	objs := render.OperatorGroupObjects(subscription.OperatorGroup{Name: "og1", Namespace: ours}, []string{"Widget.v1.x.io"})
	res, err := a.ApplyGroup(ctx, ours, objs, true)
	if err != nil || res.Skipped != "" || res.Applied != 4 {
		t.Fatalf("ApplyGroup = %+v, %v; want 4 objects applied", res, err)
	}
	if o, err := og(ours, "og1"); err != nil || o.GetAnnotations()[render.ProvidedAPIsAnnotation] != "Widget.v1.x.io" {
		t.Errorf("OperatorGroup og1 = %v, %v", o.GetAnnotations(), err)
	}

	foreign := &unstructured.Unstructured{}
	foreign.SetGroupVersionKind(operatorGroupGVK)
	foreign.SetNamespace(theirs)
	foreign.SetName("admins-own")
	if err := env.Client.Create(ctx, foreign); err != nil {
		t.Fatal(err)
	}
	objs = render.OperatorGroupObjects(subscription.OperatorGroup{Name: "og1", Namespace: theirs}, nil)
	res, err = a.ApplyGroup(ctx, theirs, objs, true)
	if err != nil || !strings.Contains(res.Skipped, "already has OperatorGroup admins-own") || res.Applied != 3 {
		t.Errorf("beside a foreign OperatorGroup: %+v, %v; want the roles only", res, err)
	}
	if _, err := og(theirs, "og1"); !apierrors.IsNotFound(err) {
		t.Errorf("a second OperatorGroup was written beside admins-own: %v", err)
	}

	res, err = a.ApplyGroup(ctx, ours, nil, true)
	if err != nil || res.Pruned != 4 {
		t.Errorf("ApplyGroup(nil) = %+v, %v; want the 4 objects deleted", res, err)
	}
	if _, err := og(ours, "og1"); !apierrors.IsNotFound(err) {
		t.Errorf("OperatorGroup og1 outlived its namespace's plans: %v", err)
	}
}

// operatorGroupCRD is a stand-in for OLM's OperatorGroup CRD: its kind
// served, its schema open.
func operatorGroupCRD() *apiextensionsv1.CustomResourceDefinition {
	open := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "operatorgroups.operators.coreos.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "operators.coreos.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "operatorgroups", Singular: "operatorgroup", Kind: "OperatorGroup", ListKind: "OperatorGroupList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &open}}}},
		},
	}
}
