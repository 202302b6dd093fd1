package render

import (
	"crypto/sha256"
	"math/big"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/subscription"
)

// OperatorGroupLabel marks the objects olmops keeps for a namespace's
// OperatorGroup (OperatorGroupObjects); its value is the namespace. It is
// their inventory: they belong to the namespace, not to one plan, so no
// plan's inventory holds them, and they are pruned by this label once the
// namespace has no plan left.
const OperatorGroupLabel = "olmops.io/operatorgroup-of"

// ProvidedAPIsAnnotation is OLM's OperatorGroup annotation listing the
// APIs its operators provide, as Kind.version.group joined by commas.
const ProvidedAPIsAnnotation = "olm.providedAPIs"

// operatorGroupRoleNameLimit is the longest object name Kubernetes takes,
// which OLM truncates the group's name to fit.
const operatorGroupRoleNameLimit = 253

// OperatorGroupObjects returns what OLM keeps for the OperatorGroup og
// whose operators provide apis (Kind.version.group, see ProvidedAPIs):
// the OperatorGroup with its olm.providedAPIs annotation, and its admin,
// edit and view ClusterRoles, named as OLM names them
// (olm.og.<group>.<suffix>-<hash>), aggregating the per-API roles of
// every API the group provides by OLM's labels (see aggregatedRoles).
// Binding one of them in a namespace grants that level on every API of
// the group. The output depends on its inputs only, in a fixed order.
func OperatorGroupObjects(og subscription.OperatorGroup, apis []string) []*unstructured.Unstructured {
	apis = slices.Compact(slices.Sorted(slices.Values(apis)))
	labels := func() map[string]string {
		return map[string]string{ManagedByLabel: ManagedBy, OperatorGroupLabel: og.Namespace}
	}
	group := newObject(subscription.OperatorGroupAPIVersion, "OperatorGroup", og.Namespace, og.Name)
	group.SetLabels(labels())
	group.SetAnnotations(map[string]string{ProvidedAPIsAnnotation: strings.Join(apis, ",")})
	spec := map[string]any{}
	if len(og.TargetNamespaces) > 0 {
		spec["targetNamespaces"] = toAny(og.TargetNamespaces)
	}
	group.Object["spec"] = spec
	out := []*unstructured.Unstructured{group}
	for _, a := range aggregatedVerbs {
		role := newObject(rbacAPIVersion, "ClusterRole", "", operatorGroupRoleName(og, a.suffix))
		l := labels()
		// OLM's owner labels: who the role is for, readable by a person
		// and by OLM where it runs.
		l["olm.owner"], l["olm.owner.namespace"], l["olm.owner.kind"] = og.Name, og.Namespace, "OperatorGroup"
		role.SetLabels(l)
		var selectors []any
		for _, api := range apis {
			selectors = append(selectors, map[string]any{"matchLabels": map[string]any{
				opgroupAggregationPrefix + apiHash(api) + "-" + a.suffix: "true"}})
		}
		if len(selectors) > 0 {
			role.Object["aggregationRule"] = map[string]any{"clusterRoleSelectors": selectors}
		}
		out = append(out, role)
	}
	return out
}

// operatorGroupRoleName is OLM's name of an OperatorGroup's ClusterRole:
// olm.og.<group>.<suffix>-<hash>, the hash (base 62 of SHA-224) of
// namespace/group/suffix, so that groups of one name in two namespaces
// get two roles; the group's name is cut to keep the whole within 253
// characters.
func operatorGroupRoleName(og subscription.OperatorGroup, suffix string) string {
	sum := sha256.Sum224([]byte(og.Namespace + "/" + og.Name + "/" + suffix))
	hash := new(big.Int).SetBytes(sum[:]).Text(62)
	name := og.Name
	if limit := operatorGroupRoleNameLimit - len("olm.og..-") - len(suffix) - len(hash); len(name) > limit {
		name = name[:limit]
	}
	return "olm.og." + name + "." + suffix + "-" + hash
}

// ProvidedAPIs lists the served versions of the CRDs among objs as
// Kind.version.group, sorted, each once: the entries of OLM's
// olm.providedAPIs annotation.
func ProvidedAPIs(objs []*unstructured.Unstructured) []string {
	var out []string
	for _, o := range objs {
		if o.GetKind() != "CustomResourceDefinition" || o.GroupVersionKind().Group != "apiextensions.k8s.io" {
			continue
		}
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		versions, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
		for _, v := range versions {
			m, _ := v.(map[string]any)
			if name, _ := m["name"].(string); name != "" && m["served"] == true {
				out = append(out, kind+"."+name+"."+group)
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// OperatorGroupOf reads, from the Deployments among objs (a plan's
// rendered hop), the OperatorGroup they were rendered for: its name and
// target namespaces from the olm.operatorGroup and olm.targetNamespaces
// annotations Render writes; DefaultOperatorGroup watching all namespaces
// when no Deployment says.
func OperatorGroupOf(namespace string, objs []*unstructured.Unstructured) subscription.OperatorGroup {
	og := subscription.OperatorGroup{Name: DefaultOperatorGroup, Namespace: namespace}
	for _, o := range objs {
		if o.GetKind() != "Deployment" {
			continue
		}
		ann, _, _ := unstructured.NestedStringMap(o.Object, "spec", "template", "metadata", "annotations")
		name, ok := ann[operatorGroupAnnotation]
		if !ok || name == "" {
			continue
		}
		og.Name = name
		if targets := ann[targetNamespacesAnnotation]; targets != "" {
			og.TargetNamespaces = strings.Split(targets, ",")
		}
		break
	}
	return og
}
