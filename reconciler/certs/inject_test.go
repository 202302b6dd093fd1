package certs

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// objects parses YAML documents separated by ---.
func objects(tb testing.TB, docs string) []*unstructured.Unstructured {
	tb.Helper()
	var out []*unstructured.Unstructured
	for _, doc := range strings.Split(docs, "\n---\n") {
		o := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &o.Object); err != nil {
			tb.Fatal(err)
		}
		out = append(out, o)
	}
	return out
}

const servingObjects = `{apiVersion: v1, kind: Service, metadata: {name: demo-service, namespace: ops}}
---
{apiVersion: v1, kind: Service, metadata: {name: plain-service, namespace: ops}}
---
{apiVersion: apps/v1, kind: Deployment, metadata: {name: demo, namespace: ops, labels: {olmops.io/package: demo}},
 spec: {template: {spec: {volumes: [{name: webhook-cert, secret: {secretName: demo-service-cert}}, {name: other, secret: {secretName: plain-service-other}}]}}}}
---
{apiVersion: apps/v1, kind: Deployment, metadata: {name: plain, namespace: ops}, spec: {template: {spec: {}}}}
---
{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: v},
 webhooks: [{name: a.demo, clientConfig: {service: {name: demo-service, namespace: ops}}},
            {name: b.demo, clientConfig: {service: {name: plain-service, namespace: ops}}},
            {name: c.demo, clientConfig: {url: "https://example.com"}}]}
---
{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: widgets.demo},
 spec: {conversion: {strategy: Webhook, webhook: {clientConfig: {service: {name: demo-service, namespace: ops}}}}}}
---
{apiVersion: apiregistration.k8s.io/v1, kind: APIService, metadata: {name: v1.demo}, spec: {service: {name: demo-service, namespace: ops}}}
---
{apiVersion: apiregistration.k8s.io/v1, kind: APIService, metadata: {name: v1.other}, spec: {service: {name: demo-service, namespace: elsewhere}}}`

func TestTargetsAndInject(t *testing.T) {
	objs := objects(t, servingObjects)
	ts, err := targets("ops", objs, "olmops.io/package")
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || ts[0].service != "demo-service" || ts[0].secret() != "demo-service-cert" || ts[0].pkg != "demo" || len(ts[0].deployments) != 1 {
		t.Fatalf("targets = %+v, want demo-service served by demo", ts)
	}
	n, err := inject("ops", objs, []issued{{target: ts[0], bundle: []byte("CA"), hash: "h"}})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("inject set %d caBundles, want 3 (webhook a, CRD, APIService v1.demo)", n)
	}
	want := base64.StdEncoding.EncodeToString([]byte("CA"))
	bundle := func(o *unstructured.Unstructured, path ...string) string {
		s, _, _ := unstructured.NestedString(o.Object, path...)
		return s
	}
	hooks := objs[4].Object["webhooks"].([]any)
	for i, w := range []string{want, "", ""} {
		if got, _ := hooks[i].(map[string]any)["clientConfig"].(map[string]any)["caBundle"].(string); got != w {
			t.Errorf("webhook %d caBundle = %q, want %q", i, got, w)
		}
	}
	if got := bundle(objs[5], "spec", "conversion", "webhook", "clientConfig", "caBundle"); got != want {
		t.Errorf("CRD conversion caBundle = %q, want %q", got, want)
	}
	if got := bundle(objs[6], "spec", "caBundle"); got != want {
		t.Errorf("APIService caBundle = %q, want %q", got, want)
	}
	if got := bundle(objs[7], "spec", "caBundle"); got != "" {
		t.Errorf("APIService of another namespace's Service got caBundle %q", got)
	}
	if got := bundle(objs[2], "spec", "template", "metadata", "annotations", CAHashAnnotation); got != "h" {
		t.Errorf("pod template %s = %q, want h", CAHashAnnotation, got)
	}
	if ann := objs[3].Object["spec"].(map[string]any)["template"].(map[string]any)["metadata"]; ann != nil {
		t.Errorf("a Deployment serving nothing got %v", ann)
	}
}

func TestTargetsRefuseSecretInPlan(t *testing.T) {
	objs := objects(t, servingObjects+"\n---\n{apiVersion: v1, kind: Secret, metadata: {name: demo-service-cert, namespace: ops}}")
	if _, err := targets("ops", objs, "olmops.io/package"); !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "never kept in Git") {
		t.Errorf("targets = %v, want a refusal of the Secret in the plan", err)
	}
}
