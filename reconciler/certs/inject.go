package certs

import (
	"cmp"
	"encoding/base64"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CAHashAnnotation is OLM's pod template annotation holding CAHash of the
// CA that signed the mounted certificate: a new CA rolls the pods.
const CAHashAnnotation = "olmcahash"

var (
	crdGK        = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	apiServiceGK = schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}
	validatingGK = schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "ValidatingWebhookConfiguration"}
	mutatingGK   = schema.GroupKind{Group: "admissionregistration.k8s.io", Kind: "MutatingWebhookConfiguration"}
)

// issued is a target's certificate as the cluster will hold it.
type issued struct {
	target
	// bundle is what clients trust: the CA, then the previous CA while
	// it is valid.
	bundle []byte
	// hash is CAHash of the current CA.
	hash string
}

// inject writes each certificate's CA hash on its Deployments and its
// bundle into the objects of objs that call its Service. objs are the
// caller's copies; it returns how many caBundles it set.
func inject(namespace string, objs []*unstructured.Unstructured, certs []issued) (int, error) {
	bundles := map[[2]string]string{}
	for _, c := range certs {
		bundles[[2]string{c.namespace, c.service}] = base64.StdEncoding.EncodeToString(c.bundle)
		for _, i := range c.deployments {
			dep := objs[i]
			ann, _, _ := unstructured.NestedStringMap(dep.Object, "spec", "template", "metadata", "annotations")
			if ann == nil {
				ann = map[string]string{}
			}
			ann[CAHashAnnotation] = c.hash
			if err := unstructured.SetNestedStringMap(dep.Object, ann, "spec", "template", "metadata", "annotations"); err != nil {
				return 0, err
			}
		}
	}
	set := 0
	for _, o := range objs {
		n, err := injectOne(namespace, o, bundles)
		if err != nil {
			return 0, err
		}
		set += n
	}
	return set, nil
}

// injectOne sets caBundle next to every service reference of o that
// names a Service of bundles.
func injectOne(namespace string, o *unstructured.Unstructured, bundles map[[2]string]string) (int, error) {
	switch o.GroupVersionKind().GroupKind() {
	case validatingGK, mutatingGK:
		hooks, _, _ := unstructured.NestedSlice(o.Object, "webhooks")
		set := 0
		for _, h := range hooks {
			hm, ok := h.(map[string]any)
			if !ok {
				continue
			}
			cc, _ := hm["clientConfig"].(map[string]any)
			if setBundle(cc, "service", namespace, bundles) {
				set++
			}
		}
		if set == 0 {
			return 0, nil
		}
		return set, unstructured.SetNestedSlice(o.Object, hooks, "webhooks")
	case crdGK:
		cc, _, _ := unstructured.NestedMap(o.Object, "spec", "conversion", "webhook", "clientConfig")
		if !setBundle(cc, "service", namespace, bundles) {
			return 0, nil
		}
		return 1, unstructured.SetNestedMap(o.Object, cc, "spec", "conversion", "webhook", "clientConfig")
	case apiServiceGK:
		spec, _, _ := unstructured.NestedMap(o.Object, "spec")
		if !setBundle(spec, "service", namespace, bundles) {
			return 0, nil
		}
		return 1, unstructured.SetNestedMap(o.Object, spec, "spec")
	}
	return 0, nil
}

// setBundle sets m's caBundle when m[key] references a Service with a
// bundle; a reference without a namespace is to namespace.
func setBundle(m map[string]any, key, namespace string, bundles map[[2]string]string) bool {
	svc, _ := m[key].(map[string]any)
	if svc == nil {
		return false
	}
	ns, _ := svc["namespace"].(string)
	name, _ := svc["name"].(string)
	b, ok := bundles[[2]string{cmp.Or(ns, namespace), name}]
	if ok {
		m["caBundle"] = b
	}
	return ok
}
