package v1alpha1

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// catalogNameLabel is resolver.CatalogNameLabel, the label OLM v1 gives
// every ClusterCatalog with its name (api does not import the resolver).
const catalogNameLabel = "olm.operatorframework.io/metadata.name"

// scope checks a catalog's labels with Kubernetes' own label rules, and its
// namespaces as namespace names.
func (e *fieldErrors) scope(f string, c Catalog) {
	keys := make([]string, 0, len(c.Labels))
	for k := range c.Labels {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v, field := c.Labels[k], f+".labels."+k
		if msgs := validation.IsQualifiedName(k); len(msgs) > 0 {
			e.add(field, "label key %q is invalid: %s", k, strings.Join(msgs, "; "))
		}
		if msgs := validation.IsValidLabelValue(v); len(msgs) > 0 {
			e.add(field, "label value %q is invalid: %s", v, strings.Join(msgs, "; "))
		}
		if k == catalogNameLabel && v != c.Name {
			e.add(field, "label %s is the catalog's name (%q) and cannot be set to %q", k, c.Name, v)
		}
	}
	if c.Namespaces != nil && len(c.Namespaces) == 0 {
		// An empty list reads as "nowhere" to some and "everywhere" to
		// others: refuse it rather than pick one.
		e.add(f+".namespaces", "must name at least one namespace; leave it out for a global catalog")
	}
	seen := map[string]bool{}
	for i, ns := range c.Namespaces {
		field := fmt.Sprintf("%s.namespaces[%d]", f, i)
		if msgs := validation.IsDNS1123Label(ns); len(msgs) > 0 {
			e.add(field, "namespace %q is invalid: %s", ns, strings.Join(msgs, "; "))
		}
		if seen[ns] {
			e.add(field, "namespace %q is listed twice", ns)
		}
		seen[ns] = true
	}
}
