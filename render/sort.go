package render

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// kindRanks order kinds so that what others depend on comes first: CRDs
// before anything, identities and permissions before the workloads that
// use them.
var kindRanks = map[string]int{
	"CustomResourceDefinition": 0,
	"ServiceAccount":           1,
	"ClusterRole":              2,
	"ClusterRoleBinding":       3,
	"Role":                     4,
	"RoleBinding":              5,
	"ConfigMap":                6,
	"Secret":                   6,
	"Service":                  7,
	"Deployment":               8,
	"OperatorCondition":        9,
}

// otherRank is the rank of every kind kindRanks does not list.
const otherRank = 10

// Less orders objects by kind rank (CRDs, ServiceAccounts, ClusterRoles,
// ClusterRoleBindings, Roles, RoleBindings, ConfigMaps and Secrets,
// Services, Deployments, OperatorConditions, then the rest), then kind,
// namespace, name and apiVersion.
func Less(a, b *unstructured.Unstructured) bool { return compareObjects(a, b) < 0 }

// Sort sorts objects by Less.
func Sort(objs []*unstructured.Unstructured) {
	slices.SortStableFunc(objs, compareObjects)
}

func compareObjects(a, b *unstructured.Unstructured) int {
	return cmp.Or(
		cmp.Compare(kindRank(a), kindRank(b)),
		cmp.Compare(a.GetKind(), b.GetKind()),
		cmp.Compare(a.GetNamespace(), b.GetNamespace()),
		cmp.Compare(a.GetName(), b.GetName()),
		cmp.Compare(a.GetAPIVersion(), b.GetAPIVersion()),
	)
}

func kindRank(o *unstructured.Unstructured) int {
	if r, ok := kindRanks[o.GetKind()]; ok {
		return r
	}
	return otherRank
}
