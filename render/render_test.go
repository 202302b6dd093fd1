package render

import (
	"bytes"
	"maps"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestRenderInstallModes(t *testing.T) {
	tests := []struct {
		name    string
		modes   []string
		targets []string
		// want is the olm.targetNamespaces annotation, or the error text.
		want    string
		wantErr bool
	}{
		{"all namespaces", []string{"AllNamespaces"}, nil, "", false},
		{"all written as empty string", []string{"AllNamespaces"}, []string{""}, "", false},
		{"own namespace", []string{"OwnNamespace"}, []string{"ops"}, "ops", false},
		{"single namespace", []string{"SingleNamespace"}, []string{"team-a"}, "team-a", false},
		{"multi namespace sorted and deduplicated", []string{"MultiNamespace"}, []string{"team-b", "team-a", "team-b"}, "team-a,team-b", false},
		{"multi with own", []string{"MultiNamespace", "OwnNamespace"}, []string{"team-a", "ops"}, "ops,team-a", false},
		{"all refused", []string{"OwnNamespace", "SingleNamespace"}, nil, "it supports OwnNamespace, SingleNamespace", true},
		{"own refused", []string{"AllNamespaces"}, []string{"ops"}, "OwnNamespace InstallModeType not supported", true},
		{"single refused", []string{"OwnNamespace"}, []string{"team-a"}, "for target namespaces team-a (SingleNamespace)", true},
		{"multi refused", []string{"OwnNamespace", "SingleNamespace"}, []string{"a", "b"}, "MultiNamespace InstallModeType not supported", true},
		{"multi needs own to include ops", []string{"MultiNamespace"}, []string{"a", "ops"}, "OwnNamespace InstallModeType not supported", true},
		{"none supported", nil, nil, "it supports no install mode", true},
		{"all mixed with named", []string{"AllNamespaces", "MultiNamespace"}, []string{"", "a"}, "cannot be combined", true},
		{"bad target name", []string{"SingleNamespace"}, []string{"Team_A"}, `target namespace "Team_A"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := synthetic(t, setInstallModes(tt.modes...))
			res, err := Render(b, Options{Namespace: "ops", TargetNamespaces: tt.targets})
			if tt.wantErr {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("Render error = %v, want it to contain %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			dep := mustFind(t, res.Objects, "Deployment", "ops", "demo-operator")
			if got := field(t, dep, "spec", "template", "metadata", "annotations", "olm.targetNamespaces"); got != quoteIfEmpty(tt.want) {
				t.Errorf("olm.targetNamespaces = %s, want %q", got, tt.want)
			}
		})
	}
}

func quoteIfEmpty(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

func TestRenderBadNamespace(t *testing.T) {
	for _, ns := range []string{"", "Ops", "a.b"} {
		if _, err := Render(synthetic(t, nil), Options{Namespace: ns}); err == nil {
			t.Errorf("namespace %q: no error", ns)
		}
	}
}

func TestRenderDeployment(t *testing.T) {
	b := synthetic(t, nil)
	res := mustRender(t, b, Options{Namespace: "ops", TargetNamespaces: []string{"ops"}, OperatorGroup: "og1"})
	dep := mustFind(t, res.Objects, "Deployment", "ops", "demo-operator")
	checks := []struct {
		path []string
		want string
	}{
		{[]string{"metadata", "labels", "app"}, "demo"},
		{[]string{"spec", "revisionHistoryLimit"}, "1"},
		// The CSV's annotations win over the pod template's, as in OLM.
		{[]string{"spec", "template", "metadata", "annotations", "capabilities"}, "Basic Install"},
		{[]string{"spec", "template", "metadata", "annotations", "kubectl.kubernetes.io/default-container"}, "manager"},
		{[]string{"spec", "template", "metadata", "annotations", "createdAt"}, `"2024-05-01T12:00:00Z"`},
		{[]string{"spec", "template", "metadata", "annotations", "olm.operatorGroup"}, "og1"},
		{[]string{"spec", "template", "metadata", "annotations", "olm.operatorNamespace"}, "ops"},
		{[]string{"spec", "template", "metadata", "annotations", "olm.targetNamespaces"}, "ops"},
	}
	for _, c := range checks {
		if got := field(t, dep, c.path...); got != c.want {
			t.Errorf("%s = %s, want %s", strings.Join(c.path, "."), got, c.want)
		}
	}
	cs := containers(t, dep, "containers")
	for _, name := range []string{"manager", "sidecar"} {
		if env := envNames(cs[name]); !slices.Contains(env, "OPERATOR_CONDITION_NAME=demo-operator.v1.2.3") {
			t.Errorf("%s env = %v, want OPERATOR_CONDITION_NAME", name, env)
		}
	}
	if env := envNames(containers(t, dep, "initContainers")["init"]); len(env) != 0 {
		t.Errorf("init container env = %v, want none (OLM injects into containers only)", env)
	}
	if res := mustRender(t, b, Options{Namespace: "ops"}); field(t, mustFind(t, res.Objects, "Deployment", "ops", "demo-operator"),
		"spec", "template", "metadata", "annotations", "olm.operatorGroup") != DefaultOperatorGroup {
		t.Errorf("default operator group is not %s", DefaultOperatorGroup)
	}
}

func TestRenderEnvOverride(t *testing.T) {
	cfg := map[string]any{"env": []any{
		map[string]any{"name": "FOO", "value": "bar"},
		map[string]any{"name": "LOG_LEVEL", "value": "debug"},
		map[string]any{"name": "OPERATOR_CONDITION_NAME", "value": "mine"},
	}}
	res := mustRender(t, synthetic(t, nil), Options{Namespace: "ops", Config: cfg})
	cs := containers(t, mustFind(t, res.Objects, "Deployment", "ops", "demo-operator"), "containers")
	tests := []struct {
		container string
		want      []string
	}{
		// Overridden in place, appended in config order, and OLM's own
		// variable set last over the config's.
		{"manager", []string{"LOG_LEVEL=debug", "WATCH_NAMESPACE=<from>", "FOO=bar", "OPERATOR_CONDITION_NAME=demo-operator.v1.2.3"}},
		{"sidecar", []string{"FOO=bar", "LOG_LEVEL=debug", "OPERATOR_CONDITION_NAME=demo-operator.v1.2.3"}},
	}
	for _, tt := range tests {
		t.Run(tt.container, func(t *testing.T) {
			if got := envNames(cs[tt.container]); !slices.Equal(got, tt.want) {
				t.Errorf("env = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestRenderOperatorCondition(t *testing.T) {
	b := synthetic(t, func(csv map[string]any) {
		s := installSpecOf(csv)
		s["permissions"] = append(s["permissions"].([]any), map[string]any{"serviceAccountName": "helper", "rules": []any{}})
	})
	res := mustRender(t, b, Options{Namespace: "ops"})
	cond := mustFind(t, res.Objects, "OperatorCondition", "ops", "demo-operator.v1.2.3")
	if got := cond.GetAPIVersion(); got != "operators.coreos.com/v2" {
		t.Errorf("apiVersion = %s", got)
	}
	if got, want := field(t, cond, "spec"), "deployments:\n- demo-operator\nserviceAccounts:\n- demo-operator\n- helper"; got != want {
		t.Errorf("spec =\n%s\nwant\n%s", got, want)
	}
	role := mustFind(t, res.Objects, "Role", "ops", "demo-operator-condition")
	wantRules := "- apiGroups:\n  - operators.coreos.com\n  resourceNames:\n  - demo-operator.v1.2.3\n  resources:\n  - operatorconditions\n  verbs:\n  - get\n  - update\n  - patch"
	if got := field(t, role, "rules"); got != wantRules {
		t.Errorf("rules =\n%s\nwant\n%s", got, wantRules)
	}
	binding := mustFind(t, res.Objects, "RoleBinding", "ops", "demo-operator-condition")
	wantSubjects := "- kind: ServiceAccount\n  name: demo-operator\n  namespace: ops\n- kind: ServiceAccount\n  name: helper\n  namespace: ops"
	if got := field(t, binding, "subjects"); got != wantSubjects {
		t.Errorf("subjects =\n%s\nwant\n%s", got, wantSubjects)
	}
	if got := field(t, binding, "roleRef", "name"); got != "demo-operator-condition" {
		t.Errorf("roleRef = %s", got)
	}
}

func TestRenderLabelsAndOrder(t *testing.T) {
	res := mustRender(t, synthetic(t, nil, `{apiVersion: v1, kind: ConfigMap, metadata: {name: settings}}`), Options{Namespace: "ops"})
	want := []string{
		"CustomResourceDefinition /widgets.demo.example.com",
		"ServiceAccount ops/demo-operator",
		"ClusterRole /demo-ops-demo-operator",
		"ClusterRole /widgets.demo.example.com-v1-admin",
		"ClusterRole /widgets.demo.example.com-v1-crdview",
		"ClusterRole /widgets.demo.example.com-v1-edit",
		"ClusterRole /widgets.demo.example.com-v1-view",
		"ClusterRoleBinding /demo-ops-demo-operator",
		"Role ops/demo-operator-condition",
		"RoleBinding ops/demo-operator-condition",
		"ConfigMap ops/settings",
		"Deployment ops/demo-operator",
		"OperatorCondition ops/demo-operator.v1.2.3",
	}
	if got := identities(res.Objects); !slices.Equal(got, want) {
		t.Errorf("objects =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// CRDs and their per-API roles may be shared by several packages:
	// they carry no package label.
	for _, o := range res.Objects {
		shared := o.GetKind() == "CustomResourceDefinition" || strings.HasPrefix(o.GetName(), "widgets.demo.example.com-")
		if l := o.GetLabels(); l[ManagedByLabel] != ManagedBy || shared != (l[PackageLabel] == "") || !shared && l[PackageLabel] != "demo" {
			t.Errorf("%s labels = %v", o.GetName(), l)
		}
	}
}

func TestRenderBundleObjects(t *testing.T) {
	extra := []string{
		`{apiVersion: v1, kind: ServiceAccount, metadata: {name: demo-operator, namespace: elsewhere, annotations: {from: bundle}}}`,
		`{apiVersion: v1, kind: Service, metadata: {name: metrics, namespace: elsewhere}}`,
		`{apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high, namespace: wrong}, value: 1000}`,
		`{apiVersion: demo.example.com/v1, kind: Widget, metadata: {name: default}}`,
		`{apiVersion: apps/v1, kind: Deployment, metadata: {name: extra}}`,
	}
	res := mustRender(t, synthetic(t, nil, extra...), Options{Namespace: "ops"})
	sa := mustFind(t, res.Objects, "ServiceAccount", "ops", "demo-operator")
	if sa.GetAnnotations()["from"] != "bundle" {
		t.Errorf("the generated ServiceAccount replaced the bundle's")
	}
	mustFind(t, res.Objects, "Service", "ops", "metrics")
	mustFind(t, res.Objects, "PriorityClass", "", "high")
	mustFind(t, res.Objects, "Widget", "ops", "default")
	if n := len(slices.DeleteFunc(slices.Clone(res.Warnings), func(w string) bool { return !strings.Contains(w, "OLM does not install") })); n != 2 {
		t.Errorf("warnings %q: want 2 about kinds OLM does not install (Widget, Deployment)", res.Warnings)
	}

	_, err := Render(synthetic(t, nil, `{apiVersion: v1, kind: ConfigMap, metadata: {name: a}}`, `{apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: x}}`), Options{Namespace: "ops"})
	if err == nil || !strings.Contains(err.Error(), "two manifests for ConfigMap ops/a") {
		t.Errorf("duplicate manifests: error = %v", err)
	}
	_, err = Render(synthetic(t, nil, `{apiVersion: apps/v1, kind: Deployment, metadata: {name: demo-operator}}`), Options{Namespace: "ops"})
	if err == nil || !strings.Contains(err.Error(), "Deployment.apps ops/demo-operator is rendered twice") {
		t.Errorf("bundle Deployment clashing with the CSV's: error = %v", err)
	}
}

func TestRenderBadCSV(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(map[string]any)
		want   string
	}{
		{"strategy", func(csv map[string]any) {
			csv["spec"].(map[string]any)["install"].(map[string]any)["strategy"] = "helm"
		}, `install strategy "helm"`},
		{"permission without account", func(csv map[string]any) {
			installSpecOf(csv)["permissions"] = []any{map[string]any{"rules": []any{}}}
		}, "permissions[0] has no serviceAccountName"},
		{"deployment without spec", func(csv map[string]any) {
			installSpecOf(csv)["deployments"] = []any{map[string]any{"name": "x"}}
		}, "deployment x has no spec"},
		{"webhook on unknown deployment", func(csv map[string]any) {
			csv["spec"].(map[string]any)["webhookdefinitions"] = []any{map[string]any{
				"generateName": "v.demo.example.com", "type": "ValidatingAdmissionWebhook", "deploymentName": "nope",
				"sideEffects": "None", "admissionReviewVersions": []any{"v1"},
			}}
		}, `names deployment "nope"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := synthetic(t, tt.mutate)
			_, err := Render(b, Options{Namespace: "ops"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// A Bundle built by hand may disagree with itself; Render says so rather
// than guess.
func TestRenderHandBuiltBundle(t *testing.T) {
	b := synthetic(t, nil)
	if err := unstructured.SetNestedSlice(b.CSVObject.Object, []any{}, "spec", "install", "spec", "deployments"); err != nil {
		t.Fatal(err)
	}
	if _, err := Render(b, Options{Namespace: "ops"}); err == nil || !strings.Contains(err.Error(), "lists 0 deployments as written and 1 as typed") {
		t.Errorf("error = %v", err)
	}

	b = synthetic(t, nil)
	b.CSVObject = nil
	res := mustRender(t, b, Options{Namespace: "ops"})
	mustFind(t, res.Objects, "Deployment", "ops", "demo-operator")

	b = synthetic(t, nil)
	b.Objects[0].Object["spec"] = map[string]any{"count": 3, "bad": struct{}{}}
	if _, err := Render(b, Options{Namespace: "ops"}); err == nil || !strings.Contains(err.Error(), "bad: value of type struct {} is not JSON") {
		t.Errorf("error = %v", err)
	}
	if _, err := Render(&Bundle{}, Options{Namespace: "ops"}); err == nil {
		t.Errorf("a bundle without CSV rendered")
	}
}

func TestPackageName(t *testing.T) {
	tests := []struct {
		pkg, csvName, version, want string
	}{
		{"etcd", "etcdoperator.v0.9.4", "0.9.4", "etcd"},
		{"", "etcdoperator.v0.9.4", "0.9.4", "etcdoperator"},
		{"", "memcached-operator-v1.0.0", "1.0.0", "memcached-operator"},
		{"", "odd.v2-name", "", "odd"},
		{"", "plain", "", "plain"},
	}
	for _, tt := range tests {
		t.Run(tt.csvName, func(t *testing.T) {
			b := synthetic(t, func(csv map[string]any) {
				csv["metadata"].(map[string]any)["name"] = tt.csvName
				if tt.version == "" {
					delete(csv["spec"].(map[string]any), "version")
				} else {
					csv["spec"].(map[string]any)["version"] = tt.version
				}
			})
			b.Package = tt.pkg
			if got := packageName(b); got != tt.want {
				t.Errorf("packageName = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestBoundedName(t *testing.T) {
	long := strings.Repeat("a", 300)
	tests := []struct {
		parts   []string
		wantLen int
	}{
		{[]string{"pkg", "ns", "sa"}, len("pkg-ns-sa")},
		{[]string{"pkg", long}, maxNameLength},
	}
	for _, tt := range tests {
		got := boundedName(tt.parts...)
		if len(got) != tt.wantLen {
			t.Errorf("boundedName(%d chars) has %d chars, want %d", len(strings.Join(tt.parts, "-")), len(got), tt.wantLen)
		}
		if got != boundedName(tt.parts...) {
			t.Errorf("boundedName is not stable")
		}
	}
	if boundedName("pkg", long+"x") == boundedName("pkg", long+"y") {
		t.Errorf("long names that differ at the end collide")
	}
}

// The same inputs give the same bytes, whatever the order Go visits maps
// in, and Render leaves its inputs alone.
func TestRenderDeterministic(t *testing.T) {
	b := synthetic(t, withWebhooks(t, admissionWebhooks), `{apiVersion: v1, kind: ConfigMap, metadata: {name: a, labels: {z: "1", a: "2"}}}`)
	before, err := Files(append([]*unstructured.Unstructured{b.CSVObject}, b.Objects...))
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Namespace: "ops", TargetNamespaces: []string{"b", "a"}, Config: map[string]any{
		"annotations": map[string]any{"x": "1", "y": "2", "z": "3"},
		"env":         []any{map[string]any{"name": "A", "value": "1"}},
	}}
	first := mustRender(t, b, opts)
	want, err := Files(first.Objects)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		res := mustRender(t, b, opts)
		got, err := Files(res.Objects)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.EqualFunc(got, want, bytes.Equal) || !slices.Equal(res.Warnings, first.Warnings) {
			t.Fatalf("a second rendering differs")
		}
	}
	after, _ := Files(append([]*unstructured.Unstructured{b.CSVObject}, b.Objects...))
	if !maps.EqualFunc(before, after, bytes.Equal) {
		t.Errorf("Render changed the bundle")
	}
}
