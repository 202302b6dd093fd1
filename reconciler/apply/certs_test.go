package apply

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/reconciler/certs"
)

// servingHop is an operator serving a validating webhook, a conversion
// webhook and an aggregated API from Deployment demo, mounted as render
// mounts the certificate. Nothing calls them: the webhook matches a kind
// nobody creates and ignores failures.
func servingHop(tb testing.TB, ns string) Hop {
	tb.Helper()
	group := ns + ".certs.example.com"
	docs := fmt.Sprintf(`{apiVersion: v1, kind: Service, metadata: {name: demo-service, namespace: %[1]s},
 spec: {selector: {app: demo}, ports: [{name: "443", port: 443, targetPort: 9443}]}}
---
{apiVersion: apps/v1, kind: Deployment, metadata: {name: demo, namespace: %[1]s}, spec: {replicas: 1, selector: {matchLabels: {app: demo}},
 template: {metadata: {labels: {app: demo}}, spec: {
  containers: [{name: demo, image: demo:v1, volumeMounts: [{name: webhook-cert, mountPath: /tmp/k8s-webhook-server/serving-certs}]}],
  volumes: [{name: webhook-cert, secret: {secretName: demo-service-cert, items: [{key: tls.crt, path: tls.crt}, {key: tls.key, path: tls.key}]}}]}}}}
---
{apiVersion: admissionregistration.k8s.io/v1, kind: ValidatingWebhookConfiguration, metadata: {name: %[1]s-vgadget},
 webhooks: [{name: vgadget.%[2]s, sideEffects: None, admissionReviewVersions: [v1], failurePolicy: Ignore,
  rules: [{apiGroups: [%[2]s], apiVersions: [v1], operations: [CREATE], resources: [gadgets]}],
  clientConfig: {service: {name: demo-service, namespace: %[1]s, path: /validate, port: 443}}}]}
---
{apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, metadata: {name: gadgets.%[2]s},
 spec: {group: %[2]s, scope: Namespaced, names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList},
  versions: [{name: v1, served: true, storage: true, schema: {openAPIV3Schema: {type: object}}},
             {name: v2, served: true, storage: false, schema: {openAPIV3Schema: {type: object}}}],
  conversion: {strategy: Webhook, webhook: {conversionReviewVersions: [v1],
   clientConfig: {service: {name: demo-service, namespace: %[1]s, path: /convert, port: 443}}}}}}
---
{apiVersion: apiregistration.k8s.io/v1, kind: APIService, metadata: {name: v1.api-%[2]s},
 spec: {group: api-%[2]s, version: v1, groupPriorityMinimum: 2000, versionPriority: 15,
  service: {name: demo-service, namespace: %[1]s, port: 443}}}`, ns, group)
	var objs []*unstructured.Unstructured
	for _, doc := range strings.Split(docs, "\n---\n") {
		o := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &o.Object); err != nil {
			tb.Fatal(err)
		}
		objs = append(objs, o)
	}
	return Hop{Bundle: "demo.v1", Objects: objs}
}

var (
	secretGVK     = schema.GroupVersionKind{Version: "v1", Kind: "Secret"}
	validatingGVK = schema.GroupVersionKind{Group: "admissionregistration.k8s.io", Version: "v1", Kind: "ValidatingWebhookConfiguration"}
	apiServiceGVK = schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}
)

// clock is a settable time for certificates.
type clock struct{ now time.Time }

func (c *clock) Now() time.Time { return c.now }

// served is what the cluster holds for the demo Service's certificate.
type served struct {
	pair    certs.Pair
	bundles map[string][]byte // caBundle by the object holding it
	podHash string
}

func readServed(tb testing.TB, c client.Reader, hop Hop, ns string) served {
	tb.Helper()
	secret := get(tb, c, secretGVK, ns, "demo-service-cert")
	data := func(k string) []byte {
		s, _, _ := unstructured.NestedString(secret.Object, "data", k)
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			tb.Fatal(err)
		}
		return b
	}
	if typ, _, _ := unstructured.NestedString(secret.Object, "type"); typ != "kubernetes.io/tls" {
		tb.Errorf("Secret type = %q, want kubernetes.io/tls", typ)
	}
	s := served{pair: certs.Pair{CA: data(certs.CAKey), Cert: data(certs.CertKey), Key: data(certs.KeyKey)}, bundles: map[string][]byte{}}
	bundle := func(name string, o *unstructured.Unstructured, path ...string) {
		v, _, _ := unstructured.NestedString(o.Object, path...)
		b, err := base64.StdEncoding.DecodeString(v)
		if err != nil || len(b) == 0 {
			tb.Errorf("%s has no caBundle (%v)", name, err)
		}
		s.bundles[name] = b
	}
	v := get(tb, c, validatingGVK, "", hop.Objects[2].GetName())
	bundle("webhook", &unstructured.Unstructured{Object: v.Object["webhooks"].([]any)[0].(map[string]any)}, "clientConfig", "caBundle")
	bundle("conversion", get(tb, c, crdGVK, "", hop.Objects[3].GetName()), "spec", "conversion", "webhook", "clientConfig", "caBundle")
	bundle("apiservice", get(tb, c, apiServiceGVK, "", hop.Objects[4].GetName()), "spec", "caBundle")
	dep := get(tb, c, deploymentGVK, ns, "demo")
	s.podHash, _, _ = unstructured.NestedString(dep.Object, "spec", "template", "metadata", "annotations", certs.CAHashAnnotation)
	return s
}

// handshake serves p on 127.0.0.1 and returns the error of a client that
// trusts bundle and dials serverName at now.
func handshake(tb testing.TB, p certs.Pair, bundle []byte, serverName string, now time.Time) error {
	tb.Helper()
	cert, err := tls.X509KeyPair(p.Cert, p.Key)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if c, err := ln.Accept(); err == nil {
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundle) {
		return errors.New("caBundle holds no certificate")
	}
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", ln.Addr().String(),
		&tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12, Time: func() time.Time { return now }})
	if err != nil {
		return err
	}
	return c.Close()
}

// verifies checks that the served certificate is trusted, for the
// Service's name, by every caBundle the cluster holds, at now.
func verifies(tb testing.TB, p certs.Pair, s served, host string, now time.Time) {
	tb.Helper()
	for name, b := range s.bundles {
		if err := handshake(tb, p, b, host, now); err != nil {
			tb.Errorf("the %s caBundle does not trust the served certificate for %s: %v", name, host, err)
		}
	}
}

func TestServingCertificates(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	clk := &clock{now: time.Now()}
	a := testApplier(env.Client)
	// Nothing serves the APIService, so no hop becomes healthy; the
	// certificates are in place before the health wait.
	a.Now, a.CertValidity, a.HealthTimeout = clk.Now, 10*time.Hour, 300*time.Millisecond
	hop := servingHop(t, ns)
	t.Cleanup(func() { _ = env.Client.Delete(t.Context(), hop.Objects[4]) })
	host := "demo-service." + ns + ".svc"

	req := Request{Namespace: ns, Subscription: "demo", Package: "demo", Hops: []Hop{hop}}
	res, err := a.Apply(t.Context(), req)
	unservedAPI(t, res, err)
	first := readServed(t, env.Client, hop, ns)
	verifies(t, first.pair, first, host, clk.now)
	if err := handshake(t, first.pair, first.bundles["webhook"], "other-service."+ns+".svc", clk.now); err == nil {
		t.Error("the certificate serves a Service it was not issued for")
	}
	if want := certs.CAHash(first.pair.CA); first.podHash != want {
		t.Errorf("pod template %s = %q, want %q", certs.CAHashAnnotation, first.podHash, want)
	}
	dep := get(t, env.Client, deploymentGVK, ns, "demo")
	if vols, _, _ := unstructured.NestedSlice(dep.Object, "spec", "template", "spec", "volumes"); !strings.Contains(fmt.Sprint(vols), "secretName:demo-service-cert") {
		t.Errorf("the applied Deployment does not mount the Secret: %v", vols)
	}
	if !slicesContainsEntry(res.Inventory, "Secret", "demo-service-cert") {
		t.Errorf("the Secret is not in the inventory %v", res.Inventory)
	}

	// The same time: nothing is issued, nothing is sent.
	req.Installed, req.Inventory = res.Installed, res.Inventory
	res, err = a.Apply(t.Context(), req)
	unservedAPI(t, res, err)
	if res.Applied != 0 {
		t.Errorf("a second apply sent %d objects, want 0", res.Applied)
	}
	if again := readServed(t, env.Client, hop, ns); !bytes.Equal(again.pair.Cert, first.pair.Cert) {
		t.Error("the certificate changed while fresh")
	}

	// Less than a fifth of its life left: a new CA and certificate, the
	// pods restart, and the bundles trust both the new and the old
	// certificate while the rollout lasts.
	clk.now = clk.now.Add(9 * time.Hour)
	req.Installed, req.Inventory = res.Installed, res.Inventory
	res, err = a.Apply(t.Context(), req)
	unservedAPI(t, res, err)
	second := readServed(t, env.Client, hop, ns)
	if bytes.Equal(second.pair.CA, first.pair.CA) || bytes.Equal(second.pair.Cert, first.pair.Cert) {
		t.Fatal("the certificate was not rotated")
	}
	if second.podHash != certs.CAHash(second.pair.CA) || second.podHash == first.podHash {
		t.Errorf("pod template %s = %q after rotation, want the new CA's hash", certs.CAHashAnnotation, second.podHash)
	}
	verifies(t, second.pair, second, host, clk.now)
	verifies(t, first.pair, second, host, clk.now)

	// Once the old CA expired, the bundles drop it.
	clk.now = clk.now.Add(2 * time.Hour)
	req.Installed, req.Inventory = res.Installed, res.Inventory
	res, err = a.Apply(t.Context(), req)
	unservedAPI(t, res, err)
	third := readServed(t, env.Client, hop, ns)
	if !bytes.Equal(third.pair.Cert, second.pair.Cert) {
		t.Error("a fresh certificate was rotated")
	}
	for name, b := range third.bundles {
		if !bytes.Equal(b, second.pair.CA) {
			t.Errorf("the %s caBundle still trusts the expired CA", name)
		}
	}
}

// unservedAPI checks that the servingHop was applied and is unhealthy
// only for its APIService, which nothing serves.
func unservedAPI(tb testing.TB, res *Result, err error) {
	tb.Helper()
	if !errors.Is(err, ErrUnhealthy) || res.Phase != commitstatus.Installed || !strings.HasPrefix(res.Reason, "APIService ") {
		tb.Fatalf("Apply = %+v, %v; want installed, unhealthy for its APIService", res, err)
	}
}

func slicesContainsEntry(inv Inventory, kind, name string) bool {
	for _, e := range inv {
		if e.Kind == kind && e.Name == name {
			return true
		}
	}
	return false
}

func TestServingCertificateRefusesForeignSecret(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	hop := servingHop(t, ns)
	foreign := &unstructured.Unstructured{}
	foreign.SetGroupVersionKind(secretGVK)
	foreign.SetNamespace(ns)
	foreign.SetName("demo-service-cert")
	if err := env.Client.Create(t.Context(), foreign); err != nil {
		t.Fatal(err)
	}
	res, err := a.Apply(t.Context(), Request{Namespace: ns, Subscription: "demo", Package: "demo", Hops: []Hop{hop}})
	if !errors.Is(err, certs.ErrRefused) {
		t.Fatalf("Apply = %v, want ErrRefused", err)
	}
	if res.Phase != commitstatus.Failed || !strings.Contains(res.Reason, "delete it") || res.Applied != 0 {
		t.Errorf("result = %s %q, %d applied; want Failed saying what to do, nothing applied", res.Phase, res.Reason, res.Applied)
	}
	dep := &unstructured.Unstructured{}
	dep.SetGroupVersionKind(deploymentGVK)
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "demo"}, dep); err == nil {
		t.Error("the Deployment was applied without its certificate")
	}
}
