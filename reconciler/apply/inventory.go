package apply

import (
	"cmp"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Entry is one object olmops applied for a subscription. The short JSON
// names keep an Inventory of a few hundred objects small enough for a
// status field.
type Entry struct {
	Group     string `json:"g,omitempty"`
	Version   string `json:"v"`
	Kind      string `json:"k"`
	Namespace string `json:"ns,omitempty"`
	Name      string `json:"n"`
	// Digest fingerprints the live object's field managers and UID as
	// olmops last left it; a live object with another digest was changed
	// by someone else and is applied again. Empty forces the next apply.
	Digest string `json:"d,omitempty"`
}

// Inventory is what olmops applied for a subscription, sorted by group,
// kind, namespace and name, each object once. The caller persists it
// (e.g. as JSON in a status) and passes it back in the next Request, so
// that objects which leave the plan are pruned.
type Inventory []Entry

// key identifies an object regardless of its API version, so that a kind
// served under a new version is the same object, not a prune and a create.
type key struct{ group, kind, namespace, name string }

func (e Entry) key() key { return key{e.Group, e.Kind, e.Namespace, e.Name} }

// GroupVersionKind is the entry's API type.
func (e Entry) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: e.Group, Version: e.Version, Kind: e.Kind}
}

// String renders the entry as "Kind namespace/name", or "Kind name" for a
// cluster-scoped object.
func (e Entry) String() string {
	if e.Namespace == "" {
		return e.Kind + " " + e.Name
	}
	return e.Kind + " " + e.Namespace + "/" + e.Name
}

func entryOf(obj *unstructured.Unstructured) Entry {
	gvk := obj.GroupVersionKind()
	return Entry{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
}

func compareEntries(a, b Entry) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Kind, b.Kind),
		cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
}

// normalize sorts entries and keeps the last of each identity, so that an
// inventory persisted by hand or by an older version still compares.
func normalize(entries []Entry) Inventory {
	out := slices.Clone(entries)
	slices.SortStableFunc(out, compareEntries)
	for i := len(out) - 1; i > 0; i-- {
		if out[i].key() == out[i-1].key() {
			out = slices.Delete(out, i-1, i)
		}
	}
	return Inventory(out)
}

// Has reports whether the inventory holds the object e names, whatever its
// version.
func (inv Inventory) Has(e Entry) bool {
	_, ok := slices.BinarySearchFunc(inv, e, compareEntries)
	return ok
}

// merge returns inv with the entries of add, which replace entries of the
// same identity.
func (inv Inventory) merge(add []Entry) Inventory {
	return normalize(append(slices.Clone(inv), add...))
}

// keys is the set of the identities in inv, never nil.
func (inv Inventory) keys() map[key]bool {
	out := make(map[key]bool, len(inv))
	for _, e := range inv {
		out[e.key()] = true
	}
	return out
}

// without returns inv less the entries whose identity is in drop.
func (inv Inventory) without(drop map[key]bool) Inventory {
	return slices.DeleteFunc(slices.Clone(inv), func(e Entry) bool { return drop[e.key()] })
}
