package apply

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/olmops/olmops/render"
)

// stage is a step of a hop's apply; each stage's objects exist before the
// next stage's are sent.
type stage int

const (
	// stageCRDs: the kinds later objects may be of.
	stageCRDs stage = iota
	// stageIdentity: Namespaces, ServiceAccounts and RBAC, which pods and
	// admission need before workloads exist.
	stageIdentity
	// stageConfig: ConfigMaps, Secrets and Services, which pods mount or
	// reach as they start.
	stageConfig
	// stageWorkloads: Deployments, StatefulSets and DaemonSets.
	stageWorkloads
	// stageRest: everything else, OperatorConditions, webhook
	// configurations (after the Services and pods that serve them) and
	// custom resources among them.
	stageRest
)

var (
	crdGK        = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}
	namespaceGK  = schema.GroupKind{Kind: "Namespace"}
	deploymentGK = schema.GroupKind{Group: "apps", Kind: "Deployment"}
)

var stages = map[schema.GroupKind]stage{
	crdGK:                    stageCRDs,
	namespaceGK:              stageIdentity,
	{Kind: "ServiceAccount"}: stageIdentity,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRole"}:        stageIdentity,
	{Group: "rbac.authorization.k8s.io", Kind: "ClusterRoleBinding"}: stageIdentity,
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:               stageIdentity,
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}:        stageIdentity,
	{Kind: "ConfigMap"}:                  stageConfig,
	{Kind: "Secret"}:                     stageConfig,
	{Kind: "Service"}:                    stageConfig,
	deploymentGK:                         stageWorkloads,
	{Group: "apps", Kind: "StatefulSet"}: stageWorkloads,
	{Group: "apps", Kind: "DaemonSet"}:   stageWorkloads,
}

func stageOf(gk schema.GroupKind) stage {
	if s, ok := stages[gk]; ok {
		return s
	}
	return stageRest
}

func objStage(obj *unstructured.Unstructured) stage {
	return stageOf(obj.GroupVersionKind().GroupKind())
}

// compareByStage orders objects by stage, then as render sorts them.
func compareByStage(a, b *unstructured.Unstructured) int {
	if sa, sb := objStage(a), objStage(b); sa != sb {
		return int(sa) - int(sb)
	}
	switch {
	case render.Less(a, b):
		return -1
	case render.Less(b, a):
		return 1
	}
	return 0
}

// providedKinds are the kinds the CRDs among objs define.
func providedKinds(objs []*unstructured.Unstructured) map[schema.GroupKind]bool {
	kinds := map[schema.GroupKind]bool{}
	for _, o := range objs {
		if o.GroupVersionKind().GroupKind() != crdGK {
			continue
		}
		group, _, _ := unstructured.NestedString(o.Object, "spec", "group")
		kind, _, _ := unstructured.NestedString(o.Object, "spec", "names", "kind")
		kinds[schema.GroupKind{Group: group, Kind: kind}] = true
	}
	return kinds
}
