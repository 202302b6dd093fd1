package render

import (
	"cmp"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Changes summarises what replacing one set of manifests with another does to a
// cluster, for a reviewer. Every slice is sorted, so equal inputs give equal values.
type Changes struct {
	// Added and Removed list objects present on one side only.
	Added, Removed []ObjectRef
	// Changed lists objects present on both sides whose content differs, ignoring
	// server-managed metadata and status.
	Changed []ObjectChange
	// RBAC lists, per Role or ClusterRole added, removed or changed, the
	// permissions gained and lost. Roles whose rules were only rewritten appear
	// in Changed but not here.
	RBAC []RuleChange
	// CRDs lists, per CustomResourceDefinition added, removed or changed, how its
	// versions changed.
	CRDs []CRDChange
	// Escalations lists the power the change grants that the objects
	// before did not have (see Escalations).
	Escalations []string
}

// ObjectRef names an object. Objects are matched by Group, Kind, Namespace and
// Name; Version is informative (the newer side's when both exist).
type ObjectRef struct{ Group, Version, Kind, Namespace, Name string }

// String renders the reference as "Kind namespace/name", or "Kind name" for
// cluster-scoped objects.
func (r ObjectRef) String() string {
	if r.Namespace == "" {
		return r.Kind + " " + r.Name
	}
	return r.Kind + " " + r.Namespace + "/" + r.Name
}

// maxChangedFields caps ObjectChange.Fields: a reviewer needs the gist, not a diff.
const maxChangedFields = 10

// ObjectChange is an object whose content differs between the two sides.
type ObjectChange struct {
	ObjectRef
	// Fields are the first paths (at most 10, in key order) whose values differ,
	// e.g. "spec.template.spec.containers[etcd-operator].image". Lists of
	// objects with unique "name" keys are indexed by name; map keys that are not
	// plain words are quoted: metadata.annotations["olm.example.io/x"].
	Fields []string
	// Omitted counts the differing paths left out of Fields.
	Omitted int
}

// RuleChange lists the permissions a Role or ClusterRole gains and loses.
type RuleChange struct {
	Role         ObjectRef
	Gained, Lost []Rule
}

// Rule is an RBAC policy rule. Rules in a RuleChange are regrouped from atomic
// (group, resource, resourceName, verb) grants, so their lists are sorted and a
// rule may differ in shape from the rules as written; wildcards stay literal.
type Rule struct{ APIGroups, Resources, ResourceNames, Verbs, NonResourceURLs []string }

// String renders the rule like kubectl describe would summarise it, e.g.
// "apps: deployments [get list watch]", "core: secrets (etcd-tls) [get]" or
// "nonResourceURLs: /metrics [get]". The core group "" reads as "core".
func (r Rule) String() string {
	verbs := " [" + strings.Join(r.Verbs, " ") + "]"
	var parts []string
	if len(r.Resources) > 0 || len(r.NonResourceURLs) == 0 {
		groups := make([]string, len(r.APIGroups))
		for i, g := range r.APIGroups {
			groups[i] = cmp.Or(g, "core")
		}
		s := strings.Join(groups, ",") + ": " + strings.Join(r.Resources, ",")
		if len(r.ResourceNames) > 0 {
			s += " (" + strings.Join(r.ResourceNames, ",") + ")"
		}
		parts = append(parts, s+verbs)
	}
	if len(r.NonResourceURLs) > 0 {
		parts = append(parts, "nonResourceURLs: "+strings.Join(r.NonResourceURLs, ",")+verbs)
	}
	return strings.Join(parts, "; ")
}

// CRDChange describes how a CustomResourceDefinition's versions change.
type CRDChange struct {
	CRD ObjectRef
	// VersionsAdded and VersionsRemoved are sorted version names.
	VersionsAdded, VersionsRemoved []string
	// StorageFrom and StorageTo are set when the storage version changes; one is
	// empty when the CRD itself is added or removed.
	StorageFrom, StorageTo string
	// StoppedServing lists versions served before and not served after, whether
	// removed or set to served: false. Stored objects of those versions can no
	// longer be read through the API, which is why reviewers are warned.
	StoppedServing []string
	// StartedServing lists versions present on both sides that became served.
	StartedServing []string
	// Breaks lists, sorted, what the new CRD may break for custom resources
	// the cluster holds, by OLM v1's crdUpgradeSafety rules (scope, versions
	// removed, and per version fields removed, newly required, retyped,
	// narrowed or given another default), e.g. "v1.spec: color becomes
	// required". The reconciler checks the live resources before it applies.
	Breaks []string
}

// NeedsMigration reports whether the storage version moves between two
// versions, so objects stored in the old one should be migrated before it goes.
func (c CRDChange) NeedsMigration() bool {
	return c.StorageFrom != "" && c.StorageTo != "" && c.StorageFrom != c.StorageTo
}

// Empty reports whether nothing changes.
func (c Changes) Empty() bool {
	return len(c.Added)+len(c.Removed)+len(c.Changed)+len(c.RBAC)+len(c.CRDs) == 0
}

type compareKey struct{ group, kind, namespace, name string }

// Compare summarises the change from the objects in before to those in after.
// Nil entries are skipped; when two entries share an identity the later wins.
// It never fails: malformed fields are compared as plain values.
func Compare(before, after []*unstructured.Unstructured) Changes {
	olds, news := indexObjects(before), indexObjects(after)
	c := Changes{Escalations: Escalations(before, after)}
	for k, o := range olds {
		n, ok := news[k]
		if !ok {
			c.Removed = append(c.Removed, refOfObject(o))
			continue
		}
		if fields := diffObjects(o, n); len(fields) > 0 {
			ch := ObjectChange{ObjectRef: refOfObject(n), Fields: fields}
			if len(fields) > maxChangedFields {
				ch.Fields, ch.Omitted = fields[:maxChangedFields:maxChangedFields], len(fields)-maxChangedFields
			}
			c.Changed = append(c.Changed, ch)
		}
	}
	for k, n := range news {
		if _, ok := olds[k]; !ok {
			c.Added = append(c.Added, refOfObject(n))
		}
	}
	c.RBAC, c.CRDs = kindChanges(olds, news)
	c.sort()
	return c
}

// kindChanges computes the RBAC and CRD summaries over every object on either side.
func kindChanges(olds, news map[compareKey]*unstructured.Unstructured) ([]RuleChange, []CRDChange) {
	var rbac []RuleChange
	var crds []CRDChange
	visit := func(k compareKey, o, n *unstructured.Unstructured) {
		switch {
		case isRoleKey(k):
			if rc, ok := ruleChange(o, n); ok {
				rbac = append(rbac, rc)
			}
		case isCRDKey(k):
			if cc, ok := crdChange(o, n); ok {
				crds = append(crds, cc)
			}
		}
	}
	for k, o := range olds {
		visit(k, o, news[k])
	}
	for k, n := range news {
		if _, ok := olds[k]; !ok {
			visit(k, nil, n)
		}
	}
	return rbac, crds
}

func (c *Changes) sort() {
	slices.SortFunc(c.Added, compareRefs)
	slices.SortFunc(c.Removed, compareRefs)
	slices.SortFunc(c.Changed, func(a, b ObjectChange) int { return compareRefs(a.ObjectRef, b.ObjectRef) })
	slices.SortFunc(c.RBAC, func(a, b RuleChange) int { return compareRefs(a.Role, b.Role) })
	slices.SortFunc(c.CRDs, func(a, b CRDChange) int { return compareRefs(a.CRD, b.CRD) })
}

// compareRefs orders by kind first because that is how a reviewer scans a table.
func compareRefs(a, b ObjectRef) int {
	return cmp.Or(strings.Compare(a.Kind, b.Kind), strings.Compare(a.Group, b.Group),
		strings.Compare(a.Namespace, b.Namespace), strings.Compare(a.Name, b.Name), strings.Compare(a.Version, b.Version))
}

func indexObjects(objs []*unstructured.Unstructured) map[compareKey]*unstructured.Unstructured {
	m := make(map[compareKey]*unstructured.Unstructured, len(objs))
	for _, u := range objs {
		if u == nil {
			continue
		}
		r := refOfObject(u)
		m[compareKey{r.Group, r.Kind, r.Namespace, r.Name}] = u
	}
	return m
}

func refOfObject(u *unstructured.Unstructured) ObjectRef {
	apiVersion := u.GetAPIVersion()
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		// Keep a malformed apiVersion whole so distinct objects stay distinct.
		gv = schema.GroupVersion{Group: apiVersion}
	}
	return ObjectRef{Group: gv.Group, Version: gv.Version, Kind: u.GetKind(), Namespace: u.GetNamespace(), Name: u.GetName()}
}

// ignoredMetadata are written by the API server, so they differ between any two
// copies of an object without meaning a change.
