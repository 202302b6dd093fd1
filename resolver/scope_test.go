package resolver_test

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/resolver"
	"github.com/olmops/olmops/subscription"
)

// scopeCatalog is a catalog holding package sel at version (which needs
// package dep when needsDep) and, when depVersion is set, package dep.
func scopeCatalog(t *testing.T, name string, priority int, namespaces []string, version string, needsDep bool, depVersion string) *catalog.Catalog {
	t.Helper()
	doc := pkgDoc("sel", version, needsDep)
	if depVersion != "" {
		doc += "---\n" + pkgDoc("dep", depVersion, false)
	}
	cfg, err := fbc.Decode(name+".yaml", []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	c := catalog.New(name, cfg)
	c.Priority, c.Namespaces = priority, namespaces
	return c
}

func pkgDoc(pkg, version string, needsDep bool) string {
	req := ""
	if needsDep {
		req = ", {type: olm.package.required, value: {packageName: dep, versionRange: '>=0.0.1'}}"
	}
	b := pkg + ".v" + version
	return "schema: olm.package\nname: " + pkg + "\ndefaultChannel: stable\n---\nschema: olm.channel\npackage: " + pkg +
		"\nname: stable\nentries: [{name: " + b + "}]\n---\nschema: olm.bundle\npackage: " + pkg + "\nname: " + b +
		"\nimage: example.com/" + pkg + ":v" + version + "\nproperties: [{type: olm.package, value: {packageName: " + pkg + ", version: " + version + "}}" + req + "]\n"
}

// TestCatalogNamespaces pins issue 15 item 2: a catalog restricted to
// namespaces is seen only by subscriptions of those namespaces (and by the
// dependencies resolved for them), and a Subscription's
// spec.sourceNamespace must name where the catalog is: a global catalog's
// namespace (olm or openshift-marketplace), or for a restricted catalog the
// subscription's own namespace. Refusals carry path:line and OLM's words.
func TestCatalogNamespaces(t *testing.T) {
	cats := []*catalog.Catalog{
		scopeCatalog(t, "global", 0, nil, "0.1.0", false, ""),
		scopeCatalog(t, "team", 10, []string{"a", "c"}, "0.3.0", false, ""),
	}
	sub := func(ns, source, sourceNS string) string {
		s := "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata:\n  name: demo\n  namespace: " + ns + "\nspec:\n  name: sel\n"
		if source != "" {
			s += "  source: " + source + "\n"
		}
		if sourceNS != "" {
			s += "  sourceNamespace: " + sourceNS + "\n"
		}
		return s
	}
	ce := func(ns string) string {
		return "apiVersion: olm.operatorframework.io/v1\nkind: ClusterExtension\nmetadata:\n  name: demo\nspec:\n  namespace: " + ns +
			"\n  serviceAccount: {name: installer}\n  source:\n    sourceType: Catalog\n    catalog: {packageName: sel}\n"
	}
	for _, tc := range []struct{ name, doc, want, wantErr string }{
		{name: "restricted catalog seen in its namespace", doc: sub("a", "", ""), want: "sel.v0.3.0"},
		{name: "restricted catalog unseen elsewhere", doc: sub("b", "", ""), want: "sel.v0.1.0"},
		{name: "restricted catalog by its namespace", doc: sub("a", "team", "a"), want: "sel.v0.3.0"},
		{name: "restricted catalog from another namespace", doc: sub("b", "team", "b"),
			wantErr: "s.yaml:1: no operators found from catalog team in namespace b referenced by subscription demo: catalog team is restricted to namespaces a, c, not b"},
		{name: "restricted catalog with a global sourceNamespace", doc: sub("a", "team", "olm"),
			wantErr: "s.yaml:1: no operators found from catalog team in namespace olm referenced by subscription demo: catalog team is restricted to namespaces a, c: spec.sourceNamespace must be the subscription's own namespace, a"},
		{name: "restricted catalog with another restricted namespace", doc: sub("a", "team", "c"),
			wantErr: "spec.sourceNamespace must be the subscription's own namespace, a"},
		{name: "global catalog in olm", doc: sub("a", "global", "olm"), want: "sel.v0.1.0"},
		{name: "global catalog in openshift-marketplace", doc: sub("b", "global", "openshift-marketplace"), want: "sel.v0.1.0"},
		{name: "global catalog in the subscription's namespace", doc: sub("a", "global", "a"),
			wantErr: "s.yaml:1: no operators found from catalog global in namespace a referenced by subscription demo: catalog global is global: spec.sourceNamespace must be olm or openshift-marketplace"},
		{name: "ClusterExtension in the restricted namespace", doc: ce("c"), want: "sel.v0.3.0"},
		{name: "ClusterExtension elsewhere", doc: ce("b"), want: "sel.v0.1.0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			intents, err := subscription.Parse("s.yaml", []byte(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			sol, err := resolver.Resolve(t.Context(), resolver.Namespace{Catalogs: cats, Subscriptions: []resolver.Subscription{{Request: intents[0].Request("")}}})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := sol.Subscriptions[0].BundleName; got != tc.want {
				t.Errorf("bundle = %s, want %s", got, tc.want)
			}
		})
	}
}

// TestCatalogNamespacesDependencies: a dependency is looked for only in the
// catalogs the subscription's namespace sees.
func TestCatalogNamespacesDependencies(t *testing.T) {
	cats := []*catalog.Catalog{
		scopeCatalog(t, "global", 0, nil, "0.1.0", true, ""),
		scopeCatalog(t, "team", 0, []string{"a"}, "9.0.0", false, "0.2.0"),
	}
	// sel comes from the global catalog (team's sel is unseen or loses on
	// the source); only team provides dep.
	for _, tc := range []struct{ ns, wantDep, wantErr string }{
		{ns: "a", wantDep: "dep.v0.2.0"},
		{ns: "b", wantErr: "constraints not satisfiable"},
	} {
		t.Run(tc.ns, func(t *testing.T) {
			req := resolver.Request{Package: "sel", Catalog: "global", Policy: resolver.Classic, Namespace: tc.ns}
			sol, err := resolver.Resolve(t.Context(), resolver.Namespace{Catalogs: cats, Subscriptions: []resolver.Subscription{{Request: req}}})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Resolve error = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(sol.Dependencies) != 1 || sol.Dependencies[0].Bundle.Name != tc.wantDep || sol.Dependencies[0].Catalog.Name != "team" {
				t.Errorf("dependencies = %+v, want %s from team", sol.Dependencies, tc.wantDep)
			}
		})
	}
}

// TestNamespaceOneName: subscriptions of two namespaces are not resolved
// together against one namespace's catalogs.
func TestNamespaceOneName(t *testing.T) {
	cats := []*catalog.Catalog{scopeCatalog(t, "global", 0, nil, "0.1.0", false, "")}
	_, err := resolver.Resolve(t.Context(), resolver.Namespace{Name: "a", Catalogs: cats, Subscriptions: []resolver.Subscription{
		{Request: resolver.Request{Package: "sel", Name: "x", Namespace: "b"}},
	}})
	if want := "subscription x: is in namespace b, not a"; err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("Resolve error = %v, want it to contain %q", err, want)
	}
}
