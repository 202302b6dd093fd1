package plan

import (
	"fmt"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/subscription"
)

// fixture is a small repository made for one test: catalog "c" with
// packages whose bundles live in bundles/<bundle>/, and one cluster "c1"
// whose subscriptions folder the test fills.
type fixture struct {
	fs      fstest.MapFS
	catalog []string
}

// widgetCRD is a CRD of group demo.example.com; props adds fields to
// spec's schema, extra adds keys to the CRD's top-level spec.
func widgetCRD(kind, props string) string {
	plural := strings.ToLower(kind) + "s"
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[2]s.demo.example.com
spec:
  group: demo.example.com
  scope: Namespaced
  names: {kind: %[1]s, plural: %[2]s, singular: %[3]s, listKind: %[1]sList}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
%[4]s
`, kind, plural, strings.ToLower(kind), props)
}

// bundle adds a package's bundle: its catalog entry, a CSV that owns
// the CRDs' kinds and supports installModes, and the CRDs.
func (f *fixture) bundle(pkg, version, replaces string, installModes []string, crds ...string) {
	name := pkg + ".v" + version
	var owned, gvks, modes []string
	for _, c := range crds {
		kind := between(c, "names: {kind: ", ",")
		owned = append(owned, fmt.Sprintf("    - {name: %ss.demo.example.com, version: v1, kind: %s}", strings.ToLower(kind), kind))
		gvks = append(gvks, fmt.Sprintf("  - {type: olm.gvk, value: {group: demo.example.com, kind: %s, version: v1}}", kind))
	}
	for _, m := range []string{"OwnNamespace", "SingleNamespace", "MultiNamespace", "AllNamespaces"} {
		modes = append(modes, fmt.Sprintf("  - {type: %s, supported: %t}", m, contains(installModes, m)))
	}
	csv := fmt.Sprintf(`apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata: {name: %s}
spec:
  version: %s
  installModes:
%s
  customresourcedefinitions:
    owned:
%s
  install:
    strategy: deployment
    spec:
      deployments:
      - name: %s-operator
        spec:
          selector: {matchLabels: {app: %s}}
          template:
            metadata: {labels: {app: %s}}
            spec: {containers: [{name: manager, image: example.com/%s:v%s}]}
`, name, version, strings.Join(modes, "\n"), strings.Join(owned, "\n"), pkg, pkg, pkg, pkg, version)
	dir := path.Join("bundles", name, "manifests")
	f.fs[path.Join(dir, "csv.yaml")] = &fstest.MapFile{Data: []byte(csv)}
	for i, c := range crds {
		f.fs[path.Join(dir, fmt.Sprintf("crd-%d.yaml", i))] = &fstest.MapFile{Data: []byte(c)}
	}
	entry := "  - name: " + name
	if replaces != "" {
		entry += "\n    replaces: " + pkg + ".v" + replaces
	}
	f.catalog = append(f.catalog, fmt.Sprintf("schema: olm.bundle\nname: %s\npackage: %s\nimage: example.com/%s-bundle:v%s\nproperties:\n  - {type: olm.package, value: {packageName: %s, version: %s}}\n%s\n",
		name, pkg, pkg, version, pkg, version, strings.Join(gvks, "\n")), "channel "+pkg+"\n"+entry)
}

func between(s, from, to string) string {
	_, after, _ := strings.Cut(s, from)
	before, _, _ := strings.Cut(after, to)
	return before
}

func contains(l []string, s string) bool {
	for _, x := range l {
		if x == s {
			return true
		}
	}
	return false
}

// sub adds a file to the cluster's subscriptions folder.
func (f *fixture) sub(name, yaml string) {
	f.fs["clusters/c1/subscriptions/"+name+".yaml"] = &fstest.MapFile{Data: []byte(yaml)}
}

// input assembles the catalog (one stable channel per package) and the
// cluster's Input.
func (f *fixture) input(t *testing.T, committed map[Key]*Committed) Input {
	t.Helper()
	var docs []string
	channels := map[string][]string{}
	var pkgs []string
	for _, d := range f.catalog {
		if rest, ok := strings.CutPrefix(d, "channel "); ok {
			pkg, entry, _ := strings.Cut(rest, "\n")
			if channels[pkg] == nil {
				pkgs = append(pkgs, pkg)
			}
			channels[pkg] = append(channels[pkg], entry)
			continue
		}
		docs = append(docs, d)
	}
	for _, p := range pkgs {
		docs = append(docs, fmt.Sprintf("schema: olm.package\nname: %s\ndefaultChannel: stable\n", p),
			fmt.Sprintf("schema: olm.channel\npackage: %s\nname: stable\nentries:\n%s\n", p, strings.Join(channels[p], "\n")))
	}
	cfs := fstest.MapFS{"catalog.yaml": {Data: []byte(strings.Join(docs, "---\n"))}}
	cfg, err := fbc.Load(t.Context(), cfs, fbc.Options{Prefix: "catalogs/c"})
	if err != nil {
		t.Fatal(err)
	}
	objs, err := subscription.LoadObjects(t.Context(), f.fs, "clusters/c1/subscriptions")
	if err != nil {
		t.Fatal(err)
	}
	cl := v1alpha1.Cluster{Name: "c1", Path: "clusters/c1", Approval: v1alpha1.ApprovalAutomatic}
	return Input{Cluster: cl, Catalogs: []*catalog.Catalog{catalog.New("c", cfg)}, Objects: objs, Repo: f.fs,
		Committed: committed, Bundles: &Sources{Repo: f.fs, BundlesPaths: map[string]string{"c": "bundles"}}, Version: "v1"}
}

const allModes = "OwnNamespace SingleNamespace MultiNamespace AllNamespaces"

func clusterExtension(name, namespace, pkg, enforcement string) string {
	s := fmt.Sprintf(`apiVersion: olm.operatorframework.io/v1
kind: ClusterExtension
metadata: {name: %s}
spec:
  namespace: %s
  serviceAccount: {name: installer}
  source:
    sourceType: Catalog
    catalog: {packageName: %s}
`, name, namespace, pkg)
	if enforcement != "" {
		s += "  install: {preflight: {crdUpgradeSafety: {enforcement: " + enforcement + "}}}\n"
	}
	return s
}

func subscriptionOf(name, namespace, pkg string) string {
	return fmt.Sprintf(`apiVersion: operators.coreos.com/v1alpha1
kind: Subscription
metadata: {name: %s, namespace: %s}
spec: {name: %s, source: c, sourceNamespace: olm}
`, name, namespace, pkg)
}

func operatorGroup(name, namespace string, targets ...string) string {
	s := fmt.Sprintf("apiVersion: operators.coreos.com/v1\nkind: OperatorGroup\nmetadata: {name: %s, namespace: %s}\n", name, namespace)
	if len(targets) > 0 {
		s += "spec: {targetNamespaces: [" + strings.Join(targets, ", ") + "]}\n"
	}
	return s
}
