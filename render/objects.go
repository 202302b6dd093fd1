package render

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// clusterScopedKinds are the kinds a bundle may ship that have no
// namespace. Kinds defined by the bundle's own CRDs are looked up in them.
var clusterScopedKinds = map[string]bool{
	"APIService":                       true,
	"CSIDriver":                        true,
	"ClusterIssuer":                    true,
	"ClusterRole":                      true,
	"ClusterRoleBinding":               true,
	"ConsoleCLIDownload":               true,
	"ConsoleExternalLogLink":           true,
	"ConsoleLink":                      true,
	"ConsoleNotification":              true,
	"ConsolePlugin":                    true,
	"ConsoleQuickStart":                true,
	"ConsoleYAMLSample":                true,
	"CustomResourceDefinition":         true,
	"IngressClass":                     true,
	"MutatingWebhookConfiguration":     true,
	"Namespace":                        true,
	"PersistentVolume":                 true,
	"PriorityClass":                    true,
	"RuntimeClass":                     true,
	"SecurityContextConstraints":       true,
	"StorageClass":                     true,
	"ValidatingAdmissionPolicy":        true,
	"ValidatingAdmissionPolicyBinding": true,
	"ValidatingWebhookConfiguration":   true,
	"VolumeSnapshotClass":              true,
}

// olmBundleKinds are the kinds OLM's catalog operator installs from a
// bundle; it fails an InstallPlan with any other.
var olmBundleKinds = map[string]bool{
	"ClusterRole": true, "ClusterRoleBinding": true, "ConfigMap": true,
	"ConsoleCLIDownload": true, "ConsoleLink": true, "ConsolePlugin": true,
	"ConsoleQuickStart": true, "ConsoleYAMLSample": true,
	"CustomResourceDefinition": true, "NetworkPolicy": true,
	"PodDisruptionBudget": true, "PriorityClass": true, "PrometheusRule": true,
	"Role": true, "RoleBinding": true, "Secret": true, "Service": true,
	"ServiceAccount": true, "ServiceMonitor": true, "VerticalPodAutoscaler": true,
}

// bundleObjects copies the bundle's manifests, each into the install
// namespace unless its kind has no namespace.
func (r *renderer) bundleObjects() error {
	crdScopes := bundleCRDScopes(r.b.Objects)
	for _, o := range r.b.Objects {
		if o == nil {
			continue
		}
		m, err := copyMap(o.Object)
		if err != nil {
			return fmt.Errorf("%s: %w", idOf(o), err)
		}
		c := &unstructured.Unstructured{Object: m}
		if err := checkIdentity(c); err != nil {
			return fmt.Errorf("%s: %w", idOf(o), err)
		}
		gk := c.GroupVersionKind().GroupKind()
		if clusterScopedKinds[gk.Kind] || crdScopes[gk] == "Cluster" {
			c.SetNamespace("")
		} else {
			c.SetNamespace(r.ns)
		}
		if !olmBundleKinds[gk.Kind] {
			r.warnf("bundle manifest %s: OLM does not install a %s from a bundle; olmops renders it anyway", idOf(c), gk.Kind)
		}
		if err := r.add(c); err != nil {
			return fmt.Errorf("the bundle has two manifests for %s", idOf(c))
		}
		r.fromBundle[idOf(c)] = true
	}
	return nil
}

// bundleCRDScopes maps the group and kind of every CRD in objs to its
// scope ("Namespaced" or "Cluster").
func bundleCRDScopes(objs []*unstructured.Unstructured) map[schema.GroupKind]string {
	out := map[schema.GroupKind]string{}
	for _, o := range objs {
		if o == nil || o.GetKind() != "CustomResourceDefinition" {
			continue
		}
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		scope, _, _ := unstructured.NestedString(o.Object, "spec", "scope")
		out[schema.GroupKind{Group: group, Kind: kind}] = scope
	}
	return out
}
