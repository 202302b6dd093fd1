// Package config_test checks the kustomize bases that install olmops in a
// cluster: each builds, lands in olmops-system, and holds what the
// controller needs. The Deployment is checked in manager_test.go, sharding
// in sharding_test.go, the RBAC against what olmops renders in rbac_test.go
// and renderkinds_test.go.
package config_test

import (
	"bytes"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/operator-framework/api/crds"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/olmops/olmops/api/v1alpha1"
)

// namespace is where config/default installs the controller.
const namespace = "olmops-system"

// kustomizations are every buildable folder of config/.
var kustomizations = []string{"crd", "olm-crds", "rbac", "manager", "default", "samples", "sharding", "sharding/shard1", "prometheus"}

// clusterScoped are the kinds in config/ that have no namespace.
var clusterScoped = map[string]bool{
	"Namespace": true, "CustomResourceDefinition": true,
	"ClusterRole": true, "ClusterRoleBinding": true,
}

// build runs kustomize on dir, a folder of config/, as
// `kubectl apply -k` would.
func build(t *testing.T, dir string) []*unstructured.Unstructured {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build config/%s: %v", dir, err)
	}
	var objs []*unstructured.Unstructured
	for _, r := range m.Resources() {
		obj, err := r.Map()
		if err != nil {
			t.Fatalf("config/%s: %s: %v", dir, r.CurId(), err)
		}
		objs = append(objs, &unstructured.Unstructured{Object: obj})
	}
	if len(objs) == 0 {
		t.Fatalf("config/%s builds no objects", dir)
	}
	return objs
}

// find returns the one object of kind and name in objs.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

// decode converts obj into the typed into, refusing unknown fields.
func decode(t *testing.T, obj *unstructured.Unstructured, into any) {
	t.Helper()
	err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(obj.Object, into, true)
	if err != nil {
		t.Fatalf("%s %s does not decode: %v", obj.GetKind(), obj.GetName(), err)
	}
}

func TestObjectsLandInControllerNamespace(t *testing.T) {
	for _, dir := range kustomizations {
		t.Run(dir, func(t *testing.T) {
			for _, o := range build(t, dir) {
				want := namespace
				if clusterScoped[o.GetKind()] {
					want = ""
				}
				if got := o.GetNamespace(); got != want {
					t.Errorf("%s %s: namespace %q, want %q", o.GetKind(), o.GetName(), got, want)
				}
				subjects, _, _ := unstructured.NestedSlice(o.Object, "subjects")
				for _, s := range subjects {
					s, _ := s.(map[string]any)
					if s["kind"] == "ServiceAccount" && s["namespace"] != namespace {
						t.Errorf("%s %s: subject %v not in %s", o.GetKind(), o.GetName(), s, namespace)
					}
				}
			}
		})
	}
}

func TestSampleRepository(t *testing.T) {
	var repo v1alpha1.Repository
	decode(t, find(t, build(t, "samples"), "Repository", "fleet"), &repo)
	want := v1alpha1.RepositorySpec{
		URL: "https://github.com/example/fleet.git", Branch: "main", Cluster: "prod-east",
		Interval:  metav1.Duration{Duration: 5 * time.Minute},
		SecretRef: &v1alpha1.LocalObjectReference{Name: "olmops-git"},
	}
	if !reflect.DeepEqual(repo.Spec, want) {
		t.Errorf("spec %+v, want %+v", repo.Spec, want)
	}
}

func TestSamplePlanner(t *testing.T) {
	var p v1alpha1.Planner
	decode(t, find(t, build(t, "samples"), "Planner", "fleet"), &p)
	want := v1alpha1.PlannerSpec{
		URL: "https://github.com/example/fleet.git", Branch: "main",
		Interval:  metav1.Duration{Duration: 10 * time.Minute},
		SecretRef: &v1alpha1.LocalObjectReference{Name: "olmops-git"},
		Forge: &v1alpha1.ForgeSpec{Type: v1alpha1.ForgeGitHub, Owner: "example", Repo: "fleet",
			TokenSecretRef: &v1alpha1.LocalObjectReference{Name: "olmops-github"}},
	}
	if !reflect.DeepEqual(p.Spec, want) {
		t.Errorf("spec %+v, want %+v", p.Spec, want)
	}
}

// TestCRDs checks that config/default installs a CRD per kind of the
// olmops.io API, each with the status subresource the ClusterRole grants.
func TestCRDs(t *testing.T) {
	for name, kind := range map[string]string{"repositories.olmops.io": "Repository", "planners.olmops.io": "Planner"} {
		t.Run(kind, func(t *testing.T) {
			var crd apiextensionsv1.CustomResourceDefinition
			decode(t, find(t, build(t, "default"), "CustomResourceDefinition", name), &crd)
			if crd.Spec.Group != "olmops.io" || crd.Spec.Names.Kind != kind || crd.Spec.Scope != apiextensionsv1.NamespaceScoped {
				t.Errorf("CRD is for %s %s (%s), want olmops.io %s (Namespaced)", crd.Spec.Group, crd.Spec.Names.Kind, crd.Spec.Scope, kind)
			}
			for _, v := range crd.Spec.Versions {
				if v.Name == "v1alpha1" && v.Served && v.Subresources != nil && v.Subresources.Status != nil {
					return
				}
			}
			t.Error("no served v1alpha1 with a status subresource")
		})
	}
}

// TestOLMCRDs checks that config/olm-crds holds OLM's OperatorCondition CRD
// byte for byte as the operator-framework/api module in go.mod ships it,
// and that config/default leaves it out (OLM owns it where OLM runs).
func TestOLMCRDs(t *testing.T) {
	const file = "operators.coreos.com_operatorconditions.yaml"
	var crd apiextensionsv1.CustomResourceDefinition
	decode(t, find(t, build(t, "olm-crds"), "CustomResourceDefinition", "operatorconditions.operators.coreos.com"), &crd)
	if !served(crd, "v2") {
		t.Error("OperatorCondition v2 is not served")
	}
	for _, o := range build(t, "default") {
		if o.GetName() == crd.Name {
			t.Errorf("config/default holds %s; it belongs in config/olm-crds only", crd.Name)
		}
	}

	got, err := os.ReadFile("olm-crds/" + file)
	if err != nil {
		t.Fatal(err)
	}
	header, body := splitHeader(got)
	want, err := crds.Asset(file)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("config/olm-crds/%s differs from github.com/operator-framework/api's crds/%s: copy it again", file, file)
	}
	if v := moduleVersion(t, "github.com/operator-framework/api"); !regexp.MustCompile(regexp.QuoteMeta(v) + `\b`).MatchString(header) {
		t.Errorf("the header of config/olm-crds/%s does not name the module version %s:\n%s", file, v, header)
	}
}

func served(crd apiextensionsv1.CustomResourceDefinition, version string) bool {
	for _, v := range crd.Spec.Versions {
		if v.Name == version && v.Served {
			return true
		}
	}
	return false
}

// splitHeader splits a YAML file into its leading comment lines and the rest.
func splitHeader(data []byte) (string, []byte) {
	var header strings.Builder
	for bytes.HasPrefix(data, []byte("#")) {
		line, rest, _ := bytes.Cut(data, []byte("\n"))
		header.Write(line)
		header.WriteByte('\n')
		data = rest
	}
	return header.String(), data
}

// moduleVersion is the version go.mod requires of module path.
func moduleVersion(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(string(data)) {
		if f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require ")); len(f) >= 2 && f[0] == path {
			return f[1]
		}
	}
	t.Fatalf("go.mod does not require %s", path)
	return ""
}
