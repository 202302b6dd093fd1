package config_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/olmops/olmops/render"
)

// groupResource names a kind's API group and resource, so that the RBAC
// test needs no RESTMapper.
type groupResource struct{ group, resource string }

// renderedKinds are the kinds olmops applies: what render makes
// (Deployments, ServiceAccounts, RBAC, OperatorConditions, webhook Services
// and configurations, APIServices), the kinds OLM installs from a bundle (olmBundleKinds
// below), and the install Namespace the applier creates.
var renderedKinds = map[string]groupResource{
	"APIService":                     {"apiregistration.k8s.io", "apiservices"},
	"ClusterRole":                    {"rbac.authorization.k8s.io", "clusterroles"},
	"ClusterRoleBinding":             {"rbac.authorization.k8s.io", "clusterrolebindings"},
	"ConfigMap":                      {"", "configmaps"},
	"ConsoleCLIDownload":             {"console.openshift.io", "consoleclidownloads"},
	"ConsoleLink":                    {"console.openshift.io", "consolelinks"},
	"ConsolePlugin":                  {"console.openshift.io", "consoleplugins"},
	"ConsoleQuickStart":              {"console.openshift.io", "consolequickstarts"},
	"ConsoleYAMLSample":              {"console.openshift.io", "consoleyamlsamples"},
	"CustomResourceDefinition":       {"apiextensions.k8s.io", "customresourcedefinitions"},
	"Deployment":                     {"apps", "deployments"},
	"MutatingWebhookConfiguration":   {"admissionregistration.k8s.io", "mutatingwebhookconfigurations"},
	"Namespace":                      {"", "namespaces"},
	"NetworkPolicy":                  {"networking.k8s.io", "networkpolicies"},
	"OperatorCondition":              {"operators.coreos.com", "operatorconditions"},
	"PodDisruptionBudget":            {"policy", "poddisruptionbudgets"},
	"PriorityClass":                  {"scheduling.k8s.io", "priorityclasses"},
	"PrometheusRule":                 {"monitoring.coreos.com", "prometheusrules"},
	"Role":                           {"rbac.authorization.k8s.io", "roles"},
	"RoleBinding":                    {"rbac.authorization.k8s.io", "rolebindings"},
	"Secret":                         {"", "secrets"},
	"Service":                        {"", "services"},
	"ServiceAccount":                 {"", "serviceaccounts"},
	"ServiceMonitor":                 {"monitoring.coreos.com", "servicemonitors"},
	"ValidatingWebhookConfiguration": {"admissionregistration.k8s.io", "validatingwebhookconfigurations"},
	"VerticalPodAutoscaler":          {"autoscaling.k8s.io", "verticalpodautoscalers"},
}

// olmBundleKinds mirrors the unexported list of the same name in
// render: the kinds OLM installs from a bundle.
// TestBundleKindsMirrorRender keeps the two equal.
var olmBundleKinds = []string{
	"ClusterRole", "ClusterRoleBinding", "ConfigMap", "ConsoleCLIDownload",
	"ConsoleLink", "ConsolePlugin", "ConsoleQuickStart", "ConsoleYAMLSample",
	"CustomResourceDefinition", "NetworkPolicy", "PodDisruptionBudget",
	"PriorityClass", "PrometheusRule", "Role", "RoleBinding", "Secret",
	"Service", "ServiceAccount", "ServiceMonitor", "VerticalPodAutoscaler",
}

// TestRenderedKindsAreKnown renders a bundle that ships one manifest of
// every kind OLM installs and has the CSV parts render turns into objects
// of their own, and checks that renderedKinds knows every kind of the
// result, in its group.
func TestRenderedKindsAreKnown(t *testing.T) {
	fsys := fstest.MapFS{
		"b/manifests/csv.yaml":        {Data: []byte(fixtureCSV)},
		"b/manifests/crd.yaml":        {Data: []byte(fixtureCRD)},
		"b/metadata/annotations.yaml": {Data: []byte("annotations:\n  operators.operatorframework.io.bundle.package.v1: demo\n")},
	}
	var shipped []string
	for _, kind := range olmBundleKinds {
		if kind == "CustomResourceDefinition" {
			continue
		}
		gr := renderedKinds[kind]
		apiVersion := schema.GroupVersion{Group: gr.group, Version: "v1"}.String()
		name := "shipped-" + strings.ToLower(kind)
		shipped = append(shipped, name)
		fsys["b/manifests/"+name+".yaml"] = &fstest.MapFile{Data: []byte(
			"{apiVersion: " + apiVersion + ", kind: " + kind + ", metadata: {name: " + name + "}}\n")}
	}
	b, err := render.FromDir(fsys, "b")
	if err != nil {
		t.Fatal(err)
	}
	res, err := render.Render(b, render.Options{Namespace: "demo"})
	if err != nil {
		t.Fatal(err)
	}
	made := map[string]bool{}
	for _, o := range res.Objects {
		gr, ok := renderedKinds[o.GetKind()]
		gv, _ := schema.ParseGroupVersion(o.GetAPIVersion())
		if !ok || gr.group != gv.Group {
			t.Errorf("render emits %s %s, which renderedKinds does not list in group %q", o.GetAPIVersion(), o.GetKind(), gv.Group)
		}
		if !slices.Contains(shipped, o.GetName()) {
			made[o.GetKind()] = true
		}
	}
	// If render does not pass a kind through as one OLM installs, it warns
	// naming the manifest.
	for _, w := range res.Warnings {
		for _, name := range shipped {
			if strings.Contains(w, name) {
				t.Errorf("render: %s", w)
			}
		}
	}
	for _, kind := range []string{"Deployment", "ServiceAccount", "Role", "ClusterRole", "OperatorCondition", "Service", "ValidatingWebhookConfiguration", "MutatingWebhookConfiguration", "APIService"} {
		if !made[kind] {
			t.Errorf("the fixture no longer makes render emit a %s of its own; made %v", kind, slices.Sorted(maps.Keys(made)))
		}
	}
}

// TestBundleKindsMirrorRender reads olmBundleKinds from render's
// source, since the package does not export it.
func TestBundleKindsMirrorRender(t *testing.T) {
	dir := filepath.Join("..", "render")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	fset := token.NewFileSet()
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, mapLiteralKeys(f, "olmBundleKinds")...)
	}
	if len(got) == 0 {
		t.Fatalf("%s declares no olmBundleKinds map any more: find where it lists the kinds OLM installs from a bundle and mirror that here", dir)
	}
	slices.Sort(got)
	if want := slices.Sorted(slices.Values(olmBundleKinds)); !slices.Equal(got, want) {
		t.Errorf("render's olmBundleKinds are\n%v\nthe mirror here is\n%v\n(update olmBundleKinds, renderedKinds and config/rbac/role.yaml)", got, want)
	}
}

// mapLiteralKeys returns the string keys of the map literal var name of f.
func mapLiteralKeys(f *ast.File, name string) []string {
	var keys []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if !ok {
			return true
		}
		for i, id := range spec.Names {
			if id.Name != name || i >= len(spec.Values) {
				continue
			}
			lit, _ := spec.Values[i].(*ast.CompositeLit)
			if lit == nil {
				continue
			}
			for _, elt := range lit.Elts {
				kv, _ := elt.(*ast.KeyValueExpr)
				if kv == nil {
					continue
				}
				if key, ok := kv.Key.(*ast.BasicLit); ok && key.Kind == token.STRING {
					if s, err := strconv.Unquote(key.Value); err == nil {
						keys = append(keys, s)
					}
				}
			}
		}
		return false
	})
	return keys
}

// fixtureCSV has what render turns into objects of its own: a deployment,
// namespaced and cluster permissions, and both kinds of admission webhook
// (which need AllNamespaces only).
const fixtureCSV = `
apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: demo.v1.0.0
spec:
  version: 1.0.0
  installModes:
  - {type: OwnNamespace, supported: false}
  - {type: SingleNamespace, supported: false}
  - {type: MultiNamespace, supported: false}
  - {type: AllNamespaces, supported: true}
  customresourcedefinitions:
    owned:
    - {name: widgets.demo.example.com, version: v1, kind: Widget}
  install:
    strategy: deployment
    spec:
      permissions:
      - serviceAccountName: demo
        rules: [{apiGroups: [""], resources: [configmaps], verbs: [get]}]
      clusterPermissions:
      - serviceAccountName: demo
        rules: [{apiGroups: [demo.example.com], resources: [widgets], verbs: [get]}]
      deployments:
      - name: demo
        spec:
          selector: {matchLabels: {app: demo}}
          template:
            metadata: {labels: {app: demo}}
            spec:
              serviceAccountName: demo
              containers: [{name: manager, image: example.com/demo:v1}]
  webhookdefinitions:
  - {generateName: vwidget.demo.example.com, type: ValidatingAdmissionWebhook, deploymentName: demo,
     containerPort: 443, targetPort: 9443, webhookPath: /validate, sideEffects: None, admissionReviewVersions: [v1]}
  - {generateName: mwidget.demo.example.com, type: MutatingAdmissionWebhook, deploymentName: demo,
     containerPort: 443, targetPort: 9443, webhookPath: /mutate, sideEffects: None, admissionReviewVersions: [v1]}
  apiservicedefinitions:
    owned:
    - {name: gadgets, group: demo.example.com, version: v1, kind: Gadget, deploymentName: demo, containerPort: 5443}
`

const fixtureCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.demo.example.com
spec:
  group: demo.example.com
  names: {kind: Widget, plural: widgets}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
