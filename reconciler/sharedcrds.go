package reconciler

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

var crdGroupKind = schema.GroupKind{Group: "apiextensions.k8s.io", Kind: "CustomResourceDefinition"}

// shareCRDs tells each plan which versions the cluster's other plans
// serve in the CRDs their targets install (apply.Request.SharedCRDs), so
// that no hop stops serving a version another operator still needs. The
// plan check keeps shared CRDs identical; this holds when plans were
// committed without it, or one of them is stale. Plans that did not load
// are not applied and count for nothing.
func shareCRDs(plans []*loadedPlan) {
	type served struct{ crd, version, plan string }
	var all []served
	for _, p := range plans {
		if p.err != nil || len(p.req.Hops) == 0 {
			continue
		}
		for _, o := range p.req.Hops[len(p.req.Hops)-1].Objects {
			if o.GroupVersionKind().GroupKind() != crdGroupKind {
				continue
			}
			vs, _, _ := unstructured.NestedSlice(o.Object, "spec", "versions")
			for _, v := range vs {
				m, _ := v.(map[string]any)
				if name, _ := m["name"].(string); name != "" && m["served"] == true {
					all = append(all, served{o.GetName(), name, p.namespace + "/" + p.name})
				}
			}
		}
	}
	for _, p := range plans {
		self := p.namespace + "/" + p.name
		for _, s := range all {
			if s.plan == self {
				continue
			}
			if p.req.SharedCRDs == nil {
				p.req.SharedCRDs = map[string]map[string][]string{}
			}
			if p.req.SharedCRDs[s.crd] == nil {
				p.req.SharedCRDs[s.crd] = map[string][]string{}
			}
			p.req.SharedCRDs[s.crd][s.version] = append(p.req.SharedCRDs[s.crd][s.version], s.plan)
		}
	}
}
