package kubetest

import (
	"bufio"
	"os"
	"strings"
	"testing"

	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// toolsGoMod pins the Kubernetes release that `make envtest` builds.
const toolsGoMod = "../../tools/envtest/go.mod"

func TestServerVersion(t *testing.T) {
	env := kube.Env(t)
	want := pinnedKubernetes(t)
	dc, err := discovery.NewDiscoveryClientForConfig(env.Config)
	if err != nil {
		t.Fatal(err)
	}
	got, err := dc.ServerVersion()
	if err != nil {
		t.Fatal(err)
	}
	// A build without the version ldflags reports v0.0.0-master.
	if got.GitVersion != want {
		t.Errorf("server version %q, want %q (pinned in %s)", got.GitVersion, want, toolsGoMod)
	}
	if wantMinor := strings.Split(want, ".")[1]; got.Major != "1" || got.Minor != wantMinor {
		t.Errorf("server major.minor %s.%s, want 1.%s", got.Major, got.Minor, wantMinor)
	}
}

func TestCreateCRD(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	// The namespace name makes the group unique, so -count=N reruns pass.
	crd := widgetCRD(ns + ".kubetest.olmops.io")
	if err := env.CreateCRD(t.Context(), crd); err != nil {
		t.Fatal(err)
	}

	var got apiextensionsv1.CustomResourceDefinition
	if err := env.Client.Get(t.Context(), client.ObjectKey{Name: crd.Name}, &got); err != nil {
		t.Fatal(err)
	}
	if !established(&got) {
		t.Fatalf("CreateCRD returned before %s was Established: %+v", crd.Name, got.Status.Conditions)
	}

	// Established means served: a custom resource goes in and comes back.
	widget := &unstructured.Unstructured{}
	widget.SetAPIVersion(crd.Spec.Group + "/v1")
	widget.SetKind("Widget")
	widget.SetNamespace(ns)
	widget.SetName("w1")
	widget.Object["spec"] = map[string]any{"size": int64(3)}
	if err := env.Client.Create(t.Context(), widget); err != nil {
		t.Fatalf("create Widget: %v", err)
	}
	back := &unstructured.Unstructured{}
	back.SetGroupVersionKind(widget.GroupVersionKind())
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(widget), back); err != nil {
		t.Fatalf("get Widget: %v", err)
	}
	if size, _, _ := unstructured.NestedInt64(back.Object, "spec", "size"); size != 3 {
		t.Errorf("Widget spec.size = %d, want 3", size)
	}
}

func TestOperatorConditionCRD(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	oc := &operatorsv2.OperatorCondition{
		ObjectMeta: metav1.ObjectMeta{Name: "etcd.v0.9.4", Namespace: ns},
		Spec: operatorsv2.OperatorConditionSpec{Conditions: []metav1.Condition{{
			Type:               operatorsv2.Upgradeable,
			Status:             metav1.ConditionFalse,
			Reason:             "Migrating",
			Message:            "storage migration in progress",
			LastTransitionTime: metav1.Now(),
		}}},
	}
	if err := env.Client.Create(t.Context(), oc); err != nil {
		t.Fatalf("create OperatorCondition: %v", err)
	}
	var got operatorsv2.OperatorCondition
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(oc), &got); err != nil {
		t.Fatal(err)
	}
	if !meta.IsStatusConditionFalse(got.Spec.Conditions, operatorsv2.Upgradeable) {
		t.Errorf("spec.conditions = %+v, want Upgradeable=False", got.Spec.Conditions)
	}
}

func widgetCRD(group string) *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group,
			Names: apiextensionsv1.CustomResourceDefinitionNames{
				Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList",
			},
			Scope: apiextensionsv1.NamespaceScoped,
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{
					OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: &preserve},
				},
			}},
		},
	}
}

// pinnedKubernetes reads the k8s.io/kubernetes requirement of the tools
// module, so that a version bump there needs no edit here.
func pinnedKubernetes(t *testing.T) string {
	t.Helper()
	f, err := os.Open(toolsGoMod)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(strings.TrimPrefix(sc.Text(), "require "))
		if len(fields) >= 2 && fields[0] == "k8s.io/kubernetes" {
			return fields[1]
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", toolsGoMod, err)
	}
	t.Fatalf("%s: no requirement on k8s.io/kubernetes", toolsGoMod)
	return ""
}

// A kubeconfig written for another process reaches the same API server.
func TestKubeconfig(t *testing.T) {
	env := kube.Env(t)
	cfg, err := clientcmd.BuildConfigFromFlags("", env.Kubeconfig(t))
	if err != nil {
		t.Fatal(err)
	}
	c, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var list corev1.NamespaceList
	if err := c.List(t.Context(), &list); err != nil {
		t.Fatalf("list namespaces through the written kubeconfig: %v", err)
	}
}
