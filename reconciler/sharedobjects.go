package reconciler

import (
	"github.com/olmops/olmops/reconciler/apply"
)

// containers maps an object (objectKey) to the plans ("namespace/name")
// whose target hops contain it: two plans that share a CRD render the
// same per-API ClusterRoles, and neither may delete them while the other
// still applies them.
type containers map[string][]string

// objectKey identifies an object whatever its API version, as the
// inventory does.
func objectKey(group, kind, namespace, name string) string {
	return group + "\x00" + kind + "\x00" + namespace + "\x00" + name
}

// containersOf indexes the target hops of the plans that loaded.
func containersOf(plans []*loadedPlan) containers {
	out := containers{}
	for _, p := range plans {
		if p.err != nil || len(p.req.Hops) == 0 {
			continue
		}
		self := p.namespace + "/" + p.name
		for _, o := range p.req.Hops[len(p.req.Hops)-1].Objects {
			gvk := o.GroupVersionKind()
			k := objectKey(gvk.Group, gvk.Kind, o.GetNamespace(), o.GetName())
			if l := out[k]; len(l) == 0 || l[len(l)-1] != self {
				out[k] = append(l, self)
			}
		}
	}
	return out
}

// shared are the entries of inv that a plan other than self ("" for
// none: every plan counts) contains.
func (c containers) shared(self string, inv apply.Inventory) apply.Inventory {
	var out apply.Inventory
	for _, e := range inv {
		for _, p := range c[objectKey(e.Group, e.Kind, e.Namespace, e.Name)] {
			if p != self {
				out = append(out, e)
				break
			}
		}
	}
	return out
}
