package render

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// The -update flag is registered here unless another test file of the package
// already declared it as a package variable (those initialise before init runs).
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files in testdata")
	}
}

func compareGoldenUpdate() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// parseCompareDocs parses "---"-separated YAML documents; documents that are not
// objects are dropped, so fuzz input needs no validity.
// parseCompareDocs decodes what it can of data as production does
// (ParseManifests, with its alias and size limits), skipping documents that
// do not decode.
func parseCompareDocs(data string) []*unstructured.Unstructured {
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(data, "\n---") {
		objs, err := ParseManifests("compare.yaml", []byte(doc))
		if err != nil {
			continue
		}
		out = append(out, objs...)
	}
	return out
}

func mustCompareObjects(t testing.TB, docs ...string) []*unstructured.Unstructured {
	t.Helper()
	objs := parseCompareDocs(strings.Join(docs, "\n---\n"))
	if len(objs) != len(docs) {
		t.Fatalf("parsed %d of %d fixture documents", len(objs), len(docs))
	}
	return objs
}

func deploymentYAML(image string, env ...string) string {
	var e strings.Builder
	for _, name := range env {
		fmt.Fprintf(&e, "\n        - {name: %s, value: %s-value}", name, name)
	}
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: etcd-operator, namespace: operators}
spec:
  replicas: 1
  template:
    spec:
      containers:
      - name: etcd-operator
        image: %s
        env:%s
      - name: proxy
        image: quay.io/proxy:v1`, image, e.String())
}

func roleYAML(kind, name, rules string) string {
	ns := "\n  namespace: operators"
	if kind == "ClusterRole" {
		ns = ""
	}
	return fmt.Sprintf("apiVersion: rbac.authorization.k8s.io/v1\nkind: %s\nmetadata:\n  name: %s%s\nrules:\n%s", kind, name, ns, rules)
}

// crdYAML takes versions as "name:flags", flags among s (served) and S (storage).
func crdYAML(versions ...string) string {
	var b strings.Builder
	b.WriteString("apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n" +
		"metadata: {name: etcdclusters.etcd.database.coreos.com}\nspec:\n  group: etcd.database.coreos.com\n  versions:\n")
	for _, v := range versions {
		name, flags, _ := strings.Cut(v, ":")
		fmt.Fprintf(&b, "  - {name: %s, served: %t, storage: %t}\n",
			name, strings.Contains(flags, "s"), strings.Contains(flags, "S"))
	}
	return b.String()
}

func configMapYAML(value string, keys int) string {
	var b strings.Builder
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: operators}\ndata:\n")
	for i := range keys {
		fmt.Fprintf(&b, "  k%02d: %s\n", i, value)
	}
	return b.String()
}

const serviceYAML = `apiVersion: v1
kind: Service
metadata: {name: etcd-metrics, namespace: operators}
spec:
  ports: [{name: metrics, port: 8443}]`

var (
	deployRef = ObjectRef{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "operators", Name: "etcd-operator"}
	roleRef   = ObjectRef{Group: rbacAPIGroup, Version: "v1", Kind: "Role", Namespace: "operators", Name: "etcd-operator"}
	crRef     = ObjectRef{Group: rbacAPIGroup, Version: "v1", Kind: "ClusterRole", Name: "etcd-admin"}
	crdRef    = ObjectRef{Group: crdAPIGroup, Version: "v1", Kind: "CustomResourceDefinition", Name: "etcdclusters.etcd.database.coreos.com"}
)

const (
	rulesBefore = `- {apiGroups: [apps], resources: [deployments, replicasets], verbs: [get, list, watch]}
- {apiGroups: [""], resources: [configmaps], verbs: ["*"]}`
	rulesAfter = `- {apiGroups: [apps], resources: [deployments], verbs: [get, list, watch, update]}
- {apiGroups: [apps], resources: [replicasets], verbs: [get]}
- {apiGroups: [""], resources: [configmaps, secrets], verbs: ["*"]}
- {apiGroups: [""], resources: [secrets], resourceNames: [etcd-tls], verbs: [get]}`
	// rulesSplit grants exactly what rulesBefore grants, written differently.
	rulesSplit = `- {apiGroups: [""], resources: [configmaps], verbs: ["*"]}
- {apiGroups: [apps], resources: [replicasets], verbs: [watch, list, get]}
- {apiGroups: [apps], resources: [deployments], verbs: [get, list, watch]}`
	rulesAdmin = `- {apiGroups: ["*"], resources: ["*"], verbs: ["*"]}
- {nonResourceURLs: [/metrics, /healthz], verbs: [get]}`
)

func TestCompare(t *testing.T) {
	tests := []struct {
		name          string
		before, after []string
		want          Changes
	}{
		{name: "object added", after: []string{deploymentYAML("etcd:v1")},
			want: Changes{Added: []ObjectRef{deployRef}}},
		{name: "object removed", before: []string{deploymentYAML("etcd:v1")},
			want: Changes{Removed: []ObjectRef{deployRef}}},
		{name: "image changed", before: []string{deploymentYAML("etcd:v1", "A")}, after: []string{deploymentYAML("etcd:v2", "A")},
			want: Changes{Changed: []ObjectChange{{ObjectRef: deployRef, Fields: []string{"spec.template.spec.containers[etcd-operator].image"}}}}},
		{name: "env reordered is no change", before: []string{deploymentYAML("etcd:v1", "A", "B", "C")}, after: []string{deploymentYAML("etcd:v1", "C", "A", "B")}},
		{name: "env var added", before: []string{deploymentYAML("etcd:v1", "A")}, after: []string{deploymentYAML("etcd:v1", "B", "A")},
			want: Changes{Changed: []ObjectChange{{ObjectRef: deployRef, Fields: []string{"spec.template.spec.containers[etcd-operator].env[B]"}}}}},
		{name: "server-managed fields ignored",
			before: []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, resourceVersion: '1', uid: x, generation: 1, creationTimestamp: '2024-01-01T00:00:00Z'}\nstatus: {phase: A}"},
			after:  []string{"apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, resourceVersion: '2', managedFields: [{manager: kubectl}]}\nstatus: {phase: B}\ndata: null"}},
		{name: "version change is the same object",
			before: []string{"apiVersion: autoscaling/v1\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}"},
			after:  []string{"apiVersion: autoscaling/v2\nkind: HorizontalPodAutoscaler\nmetadata: {name: h, namespace: ns}"},
			want: Changes{Changed: []ObjectChange{{ObjectRef: ObjectRef{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler", Namespace: "ns", Name: "h"},
				Fields: []string{"apiVersion"}}}}},
		{name: "fields capped at ten", before: []string{configMapYAML("a", 12)}, after: []string{configMapYAML("b", 12)},
			want: Changes{Changed: []ObjectChange{{ObjectRef: ObjectRef{Version: "v1", Kind: "ConfigMap", Namespace: "operators", Name: "settings"},
				Fields: []string{"data.k00", "data.k01", "data.k02", "data.k03", "data.k04", "data.k05", "data.k06", "data.k07", "data.k08", "data.k09"}, Omitted: 2}}}},
		{name: "keys and lists without names",
			before: []string{"apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {olm.io/x: a}}\nspec: {args: [a], ports: [{port: 1}, {port: 2}]}"},
			after:  []string{"apiVersion: v1\nkind: Pod\nmetadata: {name: p, annotations: {olm.io/x: b}}\nspec: {args: [a, b], ports: [{port: 1}, {port: 3}]}"},
			want: Changes{Changed: []ObjectChange{{ObjectRef: ObjectRef{Version: "v1", Kind: "Pod", Name: "p"},
				Fields: []string{`metadata.annotations["olm.io/x"]`, "spec.args", "spec.ports[1].port"}}}}},
		{name: "RBAC gained and lost with multi-verb rules and wildcards",
			before: []string{roleYAML("Role", "etcd-operator", rulesBefore)}, after: []string{roleYAML("Role", "etcd-operator", rulesAfter)},
			want: Changes{
				Changed: []ObjectChange{{ObjectRef: roleRef, Fields: []string{"rules"}}},
				RBAC: []RuleChange{{Role: roleRef,
					Gained: []Rule{
						{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"update"}},
						{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"etcd-tls"}, Verbs: []string{"get"}},
						{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"*"}},
					},
					Lost: []Rule{{APIGroups: []string{"apps"}, Resources: []string{"replicasets"}, Verbs: []string{"list", "watch"}}},
				}},
				Escalations: []string{"Role operators/etcd-operator has a wildcard rule (apiGroups [], resources [configmaps secrets], verbs [*])"}}},
		{name: "RBAC rewritten with the same grants",
			before: []string{roleYAML("Role", "etcd-operator", rulesBefore)}, after: []string{roleYAML("Role", "etcd-operator", rulesSplit)},
			want: Changes{Changed: []ObjectChange{{ObjectRef: roleRef, Fields: []string{"rules"}}}}},
		{name: "Role added gains merged rules",
			after: []string{roleYAML("Role", "etcd-operator", "- {apiGroups: [apps, extensions], resources: [deployments], verbs: [list, get]}")},
			want: Changes{Added: []ObjectRef{roleRef}, RBAC: []RuleChange{{Role: roleRef,
				Gained: []Rule{{APIGroups: []string{"apps", "extensions"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list"}}}}}}},
		{name: "ClusterRole removed loses every rule", before: []string{roleYAML("ClusterRole", "etcd-admin", rulesAdmin)},
			want: Changes{Removed: []ObjectRef{crRef}, RBAC: []RuleChange{{Role: crRef, Lost: []Rule{
				{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}},
				{NonResourceURLs: []string{"/healthz", "/metrics"}, Verbs: []string{"get"}},
			}}}}},
		{name: "CRD version added", before: []string{crdYAML("v1beta1:sS")}, after: []string{crdYAML("v1beta1:sS", "v1:s")},
			want: Changes{Changed: []ObjectChange{{ObjectRef: crdRef, Fields: []string{"spec.versions[v1]"}}},
				CRDs: []CRDChange{{CRD: crdRef, VersionsAdded: []string{"v1"}}}}},
		{name: "CRD version removed", before: []string{crdYAML("v1alpha1:s", "v1beta1:sS")}, after: []string{crdYAML("v1beta1:sS")},
			want: Changes{Changed: []ObjectChange{{ObjectRef: crdRef, Fields: []string{"spec.versions[v1alpha1]"}}},
				CRDs: []CRDChange{{CRD: crdRef, VersionsRemoved: []string{"v1alpha1"}, StoppedServing: []string{"v1alpha1"}, Breaks: []string{"version v1alpha1 is removed"}}}}},
		{name: "CRD storage flip", before: []string{crdYAML("v1beta1:sS", "v1:s")}, after: []string{crdYAML("v1beta1:s", "v1:sS")},
			want: Changes{Changed: []ObjectChange{{ObjectRef: crdRef, Fields: []string{"spec.versions[v1].storage", "spec.versions[v1beta1].storage"}}},
				CRDs: []CRDChange{{CRD: crdRef, StorageFrom: "v1beta1", StorageTo: "v1"}}}},
		{name: "CRD served flips", before: []string{crdYAML("v1alpha1:", "v1beta1:s", "v1:sS")}, after: []string{crdYAML("v1alpha1:s", "v1beta1:", "v1:sS")},
			want: Changes{Changed: []ObjectChange{{ObjectRef: crdRef, Fields: []string{"spec.versions[v1alpha1].served", "spec.versions[v1beta1].served"}}},
				CRDs: []CRDChange{{CRD: crdRef, StoppedServing: []string{"v1beta1"}, StartedServing: []string{"v1alpha1"}}}}},
		{name: "CRD added", after: []string{crdYAML("v1:sS")},
			want: Changes{Added: []ObjectRef{crdRef}, CRDs: []CRDChange{{CRD: crdRef, VersionsAdded: []string{"v1"}, StorageTo: "v1"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Compare(mustCompareObjects(t, tt.before...), mustCompareObjects(t, tt.after...))
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Compare() =\n%#v\nwant\n%#v", got, tt.want)
			}
			if got.Empty() != reflect.DeepEqual(tt.want, Changes{}) {
				t.Errorf("Empty() = %v for %#v", got.Empty(), got)
			}
		})
	}
}

func TestCompareStrings(t *testing.T) {
	tests := []struct {
		name string
		got  fmt.Stringer
		want string
	}{
		{"namespaced ref", deployRef, "Deployment operators/etcd-operator"},
		{"cluster-scoped ref", crRef, "ClusterRole etcd-admin"},
		{"rule", Rule{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch"}}, "apps: deployments [get list watch]"},
		{"core rule with names", Rule{APIGroups: []string{""}, Resources: []string{"secrets"}, ResourceNames: []string{"a", "b"}, Verbs: []string{"get"}}, "core: secrets (a,b) [get]"},
		{"wildcards", Rule{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"*"}}, "*: * [*]"},
		{"non-resource", Rule{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}, "nonResourceURLs: /metrics [get]"},
		{"mixed", Rule{APIGroups: []string{"x"}, Resources: []string{"y"}, NonResourceURLs: []string{"/z"}, Verbs: []string{"get"}}, "x: y [get]; nonResourceURLs: /z [get]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.got.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestChangesMarkdown(t *testing.T) {
	tests := []struct {
		name          string
		before, after []string
	}{
		{name: "empty", before: []string{serviceYAML}, after: []string{serviceYAML}},
		{name: "objects", before: []string{serviceYAML}, after: []string{deploymentYAML("etcd:v1")}},
		{name: "full",
			before: []string{deploymentYAML("etcd:v1", "A"), roleYAML("Role", "etcd-operator", rulesBefore), roleYAML("ClusterRole", "etcd-admin", rulesAdmin),
				crdYAML("v1alpha1:s", "v1beta1:sS"), configMapYAML("a", 12)},
			after: []string{deploymentYAML("etcd:v2", "A"), roleYAML("Role", "etcd-operator", rulesAfter),
				crdYAML("v1beta1:s", "v1:sS"), configMapYAML("b", 12), serviceYAML}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := []byte(Compare(mustCompareObjects(t, tt.before...), mustCompareObjects(t, tt.after...)).Markdown() + "\n")
			path := filepath.Join("testdata", "compare", tt.name+".md")
			if compareGoldenUpdate() {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("Markdown() differs from %s (run with -update to accept):\n%s", path, got)
			}
		})
	}
	if got := (Changes{}).Markdown(); got != "No manifest changes." {
		t.Errorf("empty Markdown() = %q", got)
	}
}

func FuzzCompare(f *testing.F) {
	f.Add(deploymentYAML("etcd:v1", "A", "B"), deploymentYAML("etcd:v2", "B"))
	f.Add(roleYAML("Role", "r", rulesBefore), roleYAML("Role", "r", rulesAfter)+"\n---\n"+roleYAML("ClusterRole", "c", rulesAdmin))
	f.Add(crdYAML("v1beta1:sS", "v1:s"), crdYAML("v1:sS")+"\n---\n"+configMapYAML("x", 3))
	f.Add("apiVersion: a/b/c\nkind: X\nmetadata: {name: [1]}\nspec: {l: [{name: a}, {name: a}]}", "- 1\n---\nnull")
	f.Fuzz(func(t *testing.T, a, b string) {
		xa, xb := parseCompareDocs(a), parseCompareDocs(b)
		for _, x := range [][]*unstructured.Unstructured{xa, xb} {
			if c := Compare(x, x); !c.Empty() {
				t.Fatalf("Compare(x, x) = %#v, want empty", c)
			}
		}
		forward, backward := Compare(xa, xb), Compare(xb, xa)
		if !reflect.DeepEqual(forward.Added, backward.Removed) || len(forward.Changed) != len(backward.Changed) ||
			len(forward.RBAC) != len(backward.RBAC) || len(forward.CRDs) != len(backward.CRDs) {
			t.Fatalf("Compare is not symmetric:\n%#v\n%#v", forward, backward)
		}
		for i, rc := range forward.RBAC {
			if !reflect.DeepEqual(rc.Gained, backward.RBAC[i].Lost) {
				t.Fatalf("gained %v, reversed lost %v", rc.Gained, backward.RBAC[i].Lost)
			}
		}
		if md := forward.Markdown(); (md == "No manifest changes.") != forward.Empty() {
			t.Fatalf("Markdown() = %q for %#v", md, forward)
		}
	})
}

func BenchmarkCompare(b *testing.B) {
	var before, after []string
	for i := range 40 {
		name := fmt.Sprintf("op-%02d", i)
		d := strings.ReplaceAll(deploymentYAML("etcd:v1", "A", "B", "C"), "etcd-operator", name)
		before, after = append(before, d), append(after, strings.Replace(d, "etcd:v1", fmt.Sprintf("etcd:v%d", i%3+1), 1))
		s := strings.ReplaceAll(serviceYAML, "etcd-metrics", name)
		before, after = append(before, s), append(after, s)
		cm := strings.ReplaceAll(configMapYAML("a", 8), "settings", name)
		before, after = append(before, cm), append(after, strings.Replace(cm, "k03: a", "k03: b", i%2))
		before = append(before, roleYAML("Role", name, rulesBefore))
		after = append(after, roleYAML("Role", name, rulesAfter))
		c := strings.ReplaceAll(crdYAML("v1beta1:sS", "v1:s"), "etcdclusters", name)
		before, after = append(before, c), append(after, strings.ReplaceAll(crdYAML("v1beta1:s", "v1:sS"), "etcdclusters", name))
	}
	old, new := mustCompareObjects(b, before...), mustCompareObjects(b, after...)
	b.ReportAllocs()
	for b.Loop() {
		Compare(old, new)
	}
}

func ExampleChanges_Markdown() {
	before := parseCompareDocs(deploymentYAML("quay.io/etcd:v0.9.2"))
	after := parseCompareDocs(deploymentYAML("quay.io/etcd:v0.9.4") + "\n---\n" + serviceYAML)
	fmt.Println(Compare(before, after).Markdown())
	// Output:
	// 1 added, 1 changed, 0 removed
	//
	// | Change | Kind | Namespace/Name |
	// | --- | --- | --- |
	// | added | Service | operators/etcd-metrics |
	// | changed | Deployment | operators/etcd-operator |
	//
	// Changed fields:
	//
	// - Deployment operators/etcd-operator: `spec.template.spec.containers[etcd-operator].image`
}
