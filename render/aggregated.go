package render

import (
	"fmt"
	"hash/fnv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// ControllerAggregationLabel marks the view ClusterRoles of operators'
// APIs that olmops' own ClusterRole olmops-custom-resources aggregates:
// before updating a CRD, the controller lists its custom resources to
// check them against the new schema (config/rbac).
const ControllerAggregationLabel = "olmops.io/aggregate-to-controller"

// aggregatedVerbs are OLM's verbs per suffix of a provided API's
// ClusterRoles.
var aggregatedVerbs = []struct {
	suffix string
	verbs  []any
}{
	{"admin", []any{"*"}},
	{"edit", []any{"create", "update", "patch", "delete"}},
	{"view", []any{"get", "list", "watch"}},
}

// aggregatedRoles renders, per API the CSV owns, the ClusterRoles OLM's
// operator creates so that namespace admins, editors and viewers can use
// it: <crd>-<version>-admin, -edit and -view on the resource, and
// <crd>-<version>-crdview with get on the CRD itself, labelled to
// aggregate into the built-in admin, edit and view roles and, as OLM
// labels them, into the OperatorGroup's roles. Owned APIServices get none:
// olmops does not serve them.
func (r *renderer) aggregatedRoles() error {
	seen := map[string]bool{}
	for _, owned := range r.csv.Spec.CustomResourceDefinitions.Owned {
		plural, group, ok := strings.Cut(owned.Name, ".")
		if !ok || owned.Version == "" || owned.Kind == "" || seen[owned.Name+"/"+owned.Version] {
			continue
		}
		seen[owned.Name+"/"+owned.Version] = true
		prefix := owned.Name + "-" + owned.Version + "-"
		hash := apiHash(owned.Kind + "." + owned.Version + "." + group)
		for _, a := range aggregatedVerbs {
			role := aggregatedRole(prefix+a.suffix, a.suffix, hash, map[string]any{"apiGroups": []any{group}, "resources": []any{plural}, "verbs": a.verbs})
			if a.suffix == "view" {
				labels := role.GetLabels()
				labels[ControllerAggregationLabel] = "true"
				role.SetLabels(labels)
			}
			if err := r.addAbsent(role); err != nil {
				return err
			}
		}
		crdView := aggregatedRole(prefix+"crdview", "view", hash, map[string]any{"apiGroups": []any{"apiextensions.k8s.io"},
			"resources": []any{"customresourcedefinitions"}, "resourceNames": []any{owned.Name}, "verbs": []any{"get"}})
		if err := r.addAbsent(crdView); err != nil {
			return err
		}
	}
	return nil
}

// addAbsent adds o unless the bundle ships an object of that identity,
// which then stays the bundle's.
func (r *renderer) addAbsent(o *unstructured.Unstructured) error {
	if r.lookup(idOf(o)) != nil {
		return nil
	}
	return r.add(o)
}

// opgroupAggregationPrefix starts OLM's label aggregating a per-API role
// into an OperatorGroup's roles.
const opgroupAggregationPrefix = "olm.opgroup.permissions/aggregate-to-"

func aggregatedRole(name, suffix, hash string, rule map[string]any) *unstructured.Unstructured {
	o := newObject(rbacAPIVersion, "ClusterRole", "", name)
	o.SetLabels(map[string]string{
		"rbac.authorization.k8s.io/aggregate-to-" + suffix: "true",
		opgroupAggregationPrefix + hash + "-" + suffix:     "true",
	})
	o.Object["rules"] = []any{rule}
	return o
}

// apiHash is OLM's hash of an API key (Kind.version.group): FNV-64a in hex.
func apiHash(key string) string {
	h := fnv.New64a()
	h.Write([]byte(key))
	return fmt.Sprintf("%x", h.Sum64())
}
