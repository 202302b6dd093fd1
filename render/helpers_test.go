package render

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/internal/corpus"
)

// Real catalogs the tests render bundles of. The shared OpenShift
// catalogs live outside the repository, in the corpus (internal/corpus):
// loadCatalog resolves a dir under ocpCatalogs there. The golden files use
// a copy of one of their bundles.
const (
	ocpCatalogs     = "catalogs/ocp-v4.16"
	exampleCatalogs = "../examples/catalogs"
	patternsCatalog = "testdata/catalogs/patterns-operator"
	patternsBundle  = "patterns-operator.v0.0.80"
	patternsPackage = "patterns-operator"
)

var (
	catalogMu    sync.Mutex
	catalogCache = map[string]*catalog.Catalog{}
)

// loadCatalog loads a catalog once per test binary: the large ones take
// a while.
func loadCatalog(tb testing.TB, dir string) *catalog.Catalog {
	tb.Helper()
	catalogMu.Lock()
	defer catalogMu.Unlock()
	if strings.HasPrefix(dir, ocpCatalogs+"/") {
		dir = corpus.Path(tb, dir)
	}
	if c, ok := catalogCache[dir]; ok {
		return c
	}
	c, err := catalog.LoadDir(context.Background(), dir, filepath.Base(dir))
	if err != nil {
		tb.Fatalf("load %s: %v", dir, err)
	}
	catalogCache[dir] = c
	return c
}

// realBundle renders nothing; it finds and converts one catalog bundle.
func realBundle(tb testing.TB, dir, pkg, name string) *Bundle {
	tb.Helper()
	p := loadCatalog(tb, dir).Packages[pkg]
	if p == nil || p.Bundles[name] == nil {
		tb.Fatalf("%s has no bundle %s/%s", dir, pkg, name)
	}
	b, err := FromCatalog(p.Bundles[name])
	if err != nil {
		tb.Fatalf("FromCatalog(%s): %v", name, err)
	}
	return b
}

// syntheticCSV is a small CSV exercising what Render handles; tests change
// it through mutate functions.
const syntheticCSV = `
apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: demo-operator.v1.2.3
  annotations:
    alm-examples: '[]'
    createdAt: "2024-05-01T12:00:00Z"
    capabilities: Basic Install
spec:
  version: 1.2.3
  installModes:
  - {type: OwnNamespace, supported: true}
  - {type: SingleNamespace, supported: true}
  - {type: MultiNamespace, supported: true}
  - {type: AllNamespaces, supported: true}
  customresourcedefinitions:
    owned:
    - {name: widgets.demo.example.com, version: v1, kind: Widget}
  install:
    strategy: deployment
    spec:
      permissions:
      - serviceAccountName: demo-operator
        rules:
        - {apiGroups: [""], resources: [configmaps], verbs: [get, list]}
      clusterPermissions:
      - serviceAccountName: demo-operator
        rules:
        - {apiGroups: [demo.example.com], resources: [widgets], verbs: ["*"]}
      deployments:
      - name: demo-operator
        label: {app: demo}
        spec:
          replicas: 1
          selector:
            matchLabels: {app: demo}
          template:
            metadata:
              labels: {app: demo}
              annotations: {kubectl.kubernetes.io/default-container: manager, capabilities: from-pod}
            spec:
              serviceAccountName: demo-operator
              initContainers:
              - {name: init, image: example.com/init:v1}
              containers:
              - name: manager
                image: example.com/demo:v1.2.3
                env:
                - {name: LOG_LEVEL, value: info}
                - name: WATCH_NAMESPACE
                  valueFrom: {fieldRef: {fieldPath: "metadata.annotations['olm.targetNamespaces']"}}
                resources:
                  requests: {cpu: 10m}
              - {name: sidecar, image: example.com/sidecar:v1}
`

const syntheticCRD = `
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

// synthetic builds the synthetic bundle through FromDir, after mutate has
// changed its CSV; extra manifests join the bundle.
func synthetic(tb testing.TB, mutate func(csv map[string]any), extra ...string) *Bundle {
	tb.Helper()
	var csv map[string]any
	if err := yaml.Unmarshal([]byte(syntheticCSV), &csv); err != nil {
		tb.Fatal(err)
	}
	if mutate != nil {
		mutate(csv)
	}
	data, err := yaml.Marshal(csv)
	if err != nil {
		tb.Fatal(err)
	}
	fsys := fstest.MapFS{
		"b/manifests/csv.yaml":        {Data: data},
		"b/manifests/crd.yaml":        {Data: []byte(syntheticCRD)},
		"b/metadata/annotations.yaml": {Data: []byte("annotations:\n  operators.operatorframework.io.bundle.package.v1: demo\n")},
	}
	if len(extra) > 0 {
		fsys["b/manifests/extra.yaml"] = &fstest.MapFile{Data: []byte(strings.Join(extra, "\n---\n"))}
	}
	b, err := FromDir(fsys, "b")
	if err != nil {
		tb.Fatalf("FromDir: %v", err)
	}
	return b
}

// installSpecOf reaches into a CSV map for mutate functions.
func installSpecOf(csv map[string]any) map[string]any {
	return csv["spec"].(map[string]any)["install"].(map[string]any)["spec"].(map[string]any)
}

// setInstallModes makes a CSV support exactly the given modes.
func setInstallModes(modes ...string) func(map[string]any) {
	return func(csv map[string]any) {
		var l []any
		for _, m := range []string{"OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"} {
			l = append(l, map[string]any{"type": m, "supported": slices.Contains(modes, m)})
		}
		csv["spec"].(map[string]any)["installModes"] = l
	}
}

// mustRender renders or fails the test.
func mustRender(tb testing.TB, b *Bundle, opts Options) *Result {
	tb.Helper()
	res, err := Render(b, opts)
	if err != nil {
		tb.Fatalf("Render: %v", err)
	}
	return res
}

// find returns the rendered object of a kind, namespace and name.
func find(objs []*unstructured.Unstructured, kind, ns, name string) *unstructured.Unstructured {
	for _, o := range objs {
		if o.GetKind() == kind && o.GetNamespace() == ns && o.GetName() == name {
			return o
		}
	}
	return nil
}

// mustFind is find that fails the test when the object is missing.
func mustFind(tb testing.TB, objs []*unstructured.Unstructured, kind, ns, name string) *unstructured.Unstructured {
	tb.Helper()
	o := find(objs, kind, ns, name)
	if o == nil {
		tb.Fatalf("no %s %s/%s among %v", kind, ns, name, identities(objs))
	}
	return o
}

// identities lists objects as "Kind ns/name", in order.
func identities(objs []*unstructured.Unstructured) []string {
	out := make([]string, len(objs))
	for i, o := range objs {
		out[i] = o.GetKind() + " " + o.GetNamespace() + "/" + o.GetName()
	}
	return out
}

// field reads a nested field for assertions, as YAML for easy comparison.
func field(tb testing.TB, o *unstructured.Unstructured, path ...string) string {
	tb.Helper()
	v, found, err := unstructured.NestedFieldNoCopy(o.Object, path...)
	if err != nil || !found {
		return "<none>"
	}
	data, err := yaml.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return strings.TrimSpace(string(data))
}

// containers returns a deployment's containers by name.
func containers(tb testing.TB, dep *unstructured.Unstructured, key string) map[string]map[string]any {
	tb.Helper()
	l, _, err := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", key)
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, c := range l {
		m := c.(map[string]any)
		out[m["name"].(string)] = m
	}
	return out
}

// envNames lists a container's variables as name=value (or name=<from>).
func envNames(c map[string]any) []string {
	var out []string
	l, _ := c["env"].([]any)
	for _, e := range l {
		m := e.(map[string]any)
		v, ok := m["value"].(string)
		if !ok {
			v = "<from>"
		}
		out = append(out, m["name"].(string)+"="+v)
	}
	return out
}
