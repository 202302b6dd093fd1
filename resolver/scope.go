package resolver

import (
	"slices"
	"strings"

	"github.com/olmops/olmops/catalog"
)

// GlobalCatalogNamespaces are the namespaces where a global catalog is, for
// a Subscription's spec.sourceNamespace: OLM's global catalog namespace
// upstream (olm) and on OpenShift (openshift-marketplace). The
// repository does not say which distribution a cluster runs, so either is
// accepted; any other namespace is refused rather than guessed at.
var GlobalCatalogNamespaces = []string{"olm", "openshift-marketplace"}

// visibleIn keeps the catalogs a subscription in namespace ns sees, as OLM
// classic's resolver sees the CatalogSources of the subscription's
// namespace and of the global catalog namespace: every global catalog, and
// the catalogs restricted to ns.
func visibleIn(cats []*catalog.Catalog, ns string) []*catalog.Catalog {
	out := cats[:0:0]
	for _, c := range cats {
		if c.Namespaces == nil || slices.Contains(c.Namespaces, ns) {
			out = append(out, c)
		}
	}
	return out
}

// checkCatalogScope refuses a request naming a catalog it cannot reach:
// one restricted to other namespaces than the subscription's, or (with
// spec.sourceNamespace) one that is not in the namespace named. The
// message starts with OLM's words and says why.
func checkCatalogScope(cats []*catalog.Catalog, req Request) error {
	i := slices.IndexFunc(cats, func(c *catalog.Catalog) bool { return c.Name == req.Catalog })
	if i < 0 {
		return nil // Successors reports a missing catalog in the policy's words
	}
	c := cats[i]
	var why string
	switch {
	case c.Namespaces != nil && !slices.Contains(c.Namespaces, req.Namespace):
		why = "catalog " + c.Name + " is restricted to namespaces " + strings.Join(c.Namespaces, ", ") + ", not " + orNone(req.Namespace)
	case req.CatalogNamespace == "":
	case c.Namespaces == nil && !slices.Contains(GlobalCatalogNamespaces, req.CatalogNamespace):
		why = "catalog " + c.Name + " is global: spec.sourceNamespace must be " + strings.Join(GlobalCatalogNamespaces, " or ")
	case c.Namespaces != nil && req.CatalogNamespace != req.Namespace:
		why = "catalog " + c.Name + " is restricted to namespaces " + strings.Join(c.Namespaces, ", ") + ": spec.sourceNamespace must be the subscription's own namespace, " + req.Namespace
	}
	if why == "" {
		return nil
	}
	sub := subscriptionName(req)
	if req.CatalogNamespace != "" {
		return notFoundf(0, "no operators found from catalog %s in namespace %s referenced by subscription %s: %s", req.Catalog, req.CatalogNamespace, sub, why)
	}
	return notFoundf(0, "no operators found from catalog %s referenced by subscription %s: %s", req.Catalog, sub, why)
}

func orNone(ns string) string {
	if ns == "" {
		return "a request without a namespace"
	}
	return ns
}
