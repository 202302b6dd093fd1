package render

import (
	"slices"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// withWebhooks adds webhook definitions, given as YAML, to the synthetic CSV.
func withWebhooks(tb testing.TB, defs string) func(map[string]any) {
	return func(csv map[string]any) {
		csv["spec"].(map[string]any)["webhookdefinitions"] = yamlList(tb, defs)
	}
}

func yamlList(tb testing.TB, s string) []any {
	tb.Helper()
	var fields struct{ L []any }
	if err := yaml.Unmarshal([]byte("l:\n"+s), &fields); err != nil {
		tb.Fatal(err)
	}
	return fields.L
}

const admissionWebhooks = `
- {generateName: vwidget.demo.example.com, type: ValidatingAdmissionWebhook, deploymentName: demo-operator,
   containerPort: 443, targetPort: 9443, webhookPath: /validate, sideEffects: None, admissionReviewVersions: [v1],
   failurePolicy: Fail, rules: [{apiGroups: [demo.example.com], apiVersions: [v1], operations: [CREATE], resources: [widgets]}]}
- {generateName: mwidget.demo.example.com, type: MutatingAdmissionWebhook, deploymentName: demo-operator,
   containerPort: 443, targetPort: 9443, webhookPath: /mutate, sideEffects: None, admissionReviewVersions: [v1], reinvocationPolicy: IfNeeded}
- {generateName: other.demo.example.com, type: ValidatingAdmissionWebhook, deploymentName: demo-operator,
   containerPort: 8443, sideEffects: None, admissionReviewVersions: [v1]}
- {generateName: same-port.demo.example.com, type: ValidatingAdmissionWebhook, deploymentName: demo-operator,
   containerPort: 443, targetPort: 9443, sideEffects: None, admissionReviewVersions: [v1]}
`

func TestRenderWebhooks(t *testing.T) {
	bundleService := `{apiVersion: v1, kind: Service, metadata: {name: demo-operator-service}, spec: {ports: [{port: 1}]}}`
	b := synthetic(t, withWebhooks(t, admissionWebhooks), bundleService)
	tests := []struct {
		name     string
		targets  []string
		selector string
	}{
		{"own namespace", []string{"ops"}, "matchExpressions:\n- key: kubernetes.io/metadata.name\n  operator: In\n  values:\n  - ops"},
		{"multi namespace", []string{"b", "a"}, "matchExpressions:\n- key: kubernetes.io/metadata.name\n  operator: In\n  values:\n  - a\n  - b"},
		{"all namespaces", nil, "<none>"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := mustRender(t, b, Options{Namespace: "ops", TargetNamespaces: tt.targets})
			svc := mustFind(t, res.Objects, "Service", "ops", "demo-operator-service")
			wantSpec := "ports:\n- name: \"443\"\n  port: 443\n  targetPort: 9443\n- name: \"8443\"\n  port: 8443\n  targetPort: 8443\nselector:\n  app: demo"
			if got := field(t, svc, "spec"); got != wantSpec {
				t.Errorf("Service spec =\n%s\nwant\n%s", got, wantSpec)
			}
			v := mustFind(t, res.Objects, "ValidatingWebhookConfiguration", "", "demo-ops-vwidget.demo.example.com")
			wantHook := "- admissionReviewVersions:\n  - v1\n  clientConfig:\n    service:\n      name: demo-operator-service\n      namespace: ops\n      path: /validate\n      port: 443\n  failurePolicy: Fail\n  name: vwidget.demo.example.com\n"
			if got := field(t, v, "webhooks"); !strings.HasPrefix(got, wantHook) {
				t.Errorf("webhooks =\n%s\nwant it to start with\n%s", got, wantHook)
			}
			hooks := v.Object["webhooks"].([]any)
			if got := yamlOf(t, hooks[0].(map[string]any)["namespaceSelector"]); got != strings.ReplaceAll(tt.selector, "<none>", "null") {
				t.Errorf("namespaceSelector =\n%s\nwant\n%s", got, tt.selector)
			}
			m := mustFind(t, res.Objects, "MutatingWebhookConfiguration", "", "demo-ops-mwidget.demo.example.com")
			if got := yamlOf(t, m.Object["webhooks"].([]any)[0].(map[string]any)["reinvocationPolicy"]); got != "IfNeeded" {
				t.Errorf("reinvocationPolicy = %s", got)
			}
			mustFind(t, res.Objects, "ValidatingWebhookConfiguration", "", "demo-ops-other.demo.example.com")

			dep := mustFind(t, res.Objects, "Deployment", "ops", "demo-operator")
			vols := field(t, dep, "spec", "template", "spec", "volumes")
			if strings.Count(vols, "secretName: demo-operator-service-cert") != 2 {
				t.Errorf("volumes =\n%s\nwant apiservice-cert and webhook-cert from demo-operator-service-cert", vols)
			}
			for name, c := range containers(t, dep, "containers") {
				want := "- mountPath: /apiserver.local.config/certificates\n  name: apiservice-cert\n- mountPath: /tmp/k8s-webhook-server/serving-certs\n  name: webhook-cert"
				if got := yamlOf(t, c["volumeMounts"]); got != want {
					t.Errorf("%s volumeMounts =\n%s", name, got)
				}
			}
			// The controller issues the certificate: nothing is left to the reader.
			if want := []string{"the bundle's Service ops/demo-operator-service is replaced by the webhook Service OLM creates"}; !slices.Equal(res.Warnings, want) {
				t.Errorf("warnings = %q, want %q", res.Warnings, want)
			}
		})
	}
}

const conversionWebhook = `
- {generateName: cwidget.demo.example.com, type: ConversionWebhook, deploymentName: demo-operator,
   containerPort: 443, targetPort: 9443, webhookPath: /convert, sideEffects: None, admissionReviewVersions: [v1, v1beta1],
   conversionCRDs: [widgets.demo.example.com]}
`

func TestRenderConversionWebhook(t *testing.T) {
	b := synthetic(t, func(csv map[string]any) {
		setInstallModes("AllNamespaces")(csv)
		withWebhooks(t, conversionWebhook)(csv)
	})
	res := mustRender(t, b, Options{Namespace: "ops"})
	crd := mustFind(t, res.Objects, "CustomResourceDefinition", "", "widgets.demo.example.com")
	want := "strategy: Webhook\nwebhook:\n  clientConfig:\n    service:\n      name: demo-operator-service\n      namespace: ops\n      path: /convert\n      port: 443\n  conversionReviewVersions:\n  - v1\n  - v1beta1"
	if got := field(t, crd, "spec", "conversion"); got != want {
		t.Errorf("conversion =\n%s\nwant\n%s", got, want)
	}
	if b.Objects[0].Object["spec"].(map[string]any)["conversion"] != nil {
		t.Errorf("Render changed the bundle's CRD")
	}
	if len(res.Warnings) > 0 {
		t.Errorf("warnings = %q, want none: the controller injects the caBundle", res.Warnings)
	}
}

func TestRenderWebhookErrors(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(map[string]any)
		want   string
	}{
		{"conversion needs AllNamespaces only", withWebhooks(t, conversionWebhook), "must support only AllNamespaces"},
		{"conversion of a CRD the CSV does not own", func(csv map[string]any) {
			setInstallModes("AllNamespaces")(csv)
			withWebhooks(t, strings.Replace(conversionWebhook, "[widgets.demo.example.com]", "[gadgets.demo.example.com]", 1))(csv)
		}, "does not own CRD gadgets.demo.example.com"},
		{"conversion without CRDs", func(csv map[string]any) {
			setInstallModes("AllNamespaces")(csv)
			withWebhooks(t, strings.Replace(conversionWebhook, "[widgets.demo.example.com]", "[]", 1))(csv)
		}, "at least one CRD"},
		{"one port, two targets", withWebhooks(t, admissionWebhooks+`
- {generateName: clash.demo.example.com, type: ValidatingAdmissionWebhook, deploymentName: demo-operator,
   containerPort: 443, targetPort: 8000, sideEffects: None, admissionReviewVersions: [v1]}`), "port 443 is served by two target ports"},
		{"two deployments, one Service name", func(csv map[string]any) {
			deps := installSpecOf(csv)["deployments"].([]any)
			twin, _ := copyMap(deps[0].(map[string]any))
			twin["name"] = "demo.operator"
			installSpecOf(csv)["deployments"] = append(deps, twin)
			withWebhooks(t, admissionWebhooks+`
- {generateName: twin.demo.example.com, type: ValidatingAdmissionWebhook, deploymentName: demo.operator,
   sideEffects: None, admissionReviewVersions: [v1]}`)(csv)
		}, "Service ops/demo-operator-service is rendered twice"},
		{"unknown type", withWebhooks(t, strings.Replace(admissionWebhooks, "type: MutatingAdmissionWebhook", "type: Magic", 1)), `unknown type "Magic"`},
		{"no selector for the service", func(csv map[string]any) {
			withWebhooks(t, admissionWebhooks)(csv)
			d := installSpecOf(csv)["deployments"].([]any)[0].(map[string]any)
			delete(d["spec"].(map[string]any), "selector")
		}, "no spec.selector.matchLabels"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(synthetic(t, tt.mutate), Options{Namespace: "ops"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}

// withAPIServices adds owned APIService definitions, given as YAML.
func withAPIServices(tb testing.TB, defs string) func(map[string]any) {
	return func(csv map[string]any) {
		csv["spec"].(map[string]any)["apiservicedefinitions"] = map[string]any{"owned": yamlList(tb, defs)}
	}
}

const ownedAPIServices = `
- {name: gadgets, group: demo.example.com, version: v1, kind: Gadget, deploymentName: demo-operator, containerPort: 5443}
- {name: gadgets, group: demo.example.com, version: v2, kind: Gadget, deploymentName: demo-operator, containerPort: 5443}
`

func TestRenderAPIServices(t *testing.T) {
	b := synthetic(t, func(csv map[string]any) {
		withAPIServices(t, ownedAPIServices)(csv)
		withWebhooks(t, admissionWebhooks)(csv)
	})
	res := mustRender(t, b, Options{Namespace: "ops"})
	for _, w := range res.Warnings {
		if strings.Contains(w, "APIService") || strings.Contains(w, "certificate") {
			t.Errorf("warning %q: the controller issues certificates and registers APIServices", w)
		}
	}
	for _, v := range []string{"v1", "v2"} {
		a := mustFind(t, res.Objects, "APIService", "", v+".demo.example.com")
		want := "group: demo.example.com\ngroupPriorityMinimum: 2000\nservice:\n  name: demo-operator-service\n  namespace: ops\n  port: 5443\nversion: " + v + "\nversionPriority: 15"
		if got := field(t, a, "spec"); got != want {
			t.Errorf("APIService %s spec =\n%s\nwant\n%s", v, got, want)
		}
	}
	svc := mustFind(t, res.Objects, "Service", "ops", "demo-operator-service")
	wantPorts := "- name: \"5443\"\n  port: 5443\n  targetPort: 5443\n- name: \"443\"\n  port: 443\n  targetPort: 9443\n- name: \"8443\"\n  port: 8443\n  targetPort: 8443"
	if got := field(t, svc, "spec", "ports"); got != wantPorts {
		t.Errorf("Service ports =\n%s\nwant\n%s", got, wantPorts)
	}
	crb := mustFind(t, res.Objects, "ClusterRoleBinding", "", "demo-operator-service-system:auth-delegator")
	if got := field(t, crb, "roleRef", "name"); got != "system:auth-delegator" {
		t.Errorf("auth delegator roleRef = %s", got)
	}
	rb := mustFind(t, res.Objects, "RoleBinding", "kube-system", "demo-operator-service-auth-reader")
	if got := field(t, rb, "subjects"); !strings.Contains(got, "namespace: ops") {
		t.Errorf("auth reader subjects =\n%s\nwant the operator's account in ops", got)
	}

	// Without webhooks, the APIServices alone bring the Service and the mounts.
	res = mustRender(t, synthetic(t, withAPIServices(t, ownedAPIServices)), Options{Namespace: "ops"})
	mustFind(t, res.Objects, "Service", "ops", "demo-operator-service")
	dep := mustFind(t, res.Objects, "Deployment", "ops", "demo-operator")
	if vols := field(t, dep, "spec", "template", "spec", "volumes"); strings.Count(vols, "secretName: demo-operator-service-cert") != 2 {
		t.Errorf("volumes =\n%s\nwant apiservice-cert and webhook-cert from demo-operator-service-cert", vols)
	}
}

func TestRenderAPIServicesRefuses(t *testing.T) {
	tests := []struct {
		name, defs, want string
	}{
		{"unknown deployment", "- {group: demo.example.com, version: v1, kind: Gadget, deploymentName: nope}", `names deployment "nope"`},
		{"no group", "- {version: v1, kind: Gadget, deploymentName: demo-operator}", "do not name an APIService"},
		{"twice", "- {group: demo.example.com, version: v1, kind: Gadget, deploymentName: demo-operator}\n- {group: demo.example.com, version: v1, kind: Other, deploymentName: demo-operator}", "rendered twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Render(synthetic(t, withAPIServices(t, tt.defs)), Options{Namespace: "ops"})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to contain %q", err, tt.want)
			}
		})
	}
}
