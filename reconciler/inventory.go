package reconciler

import (
	"slices"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/reconciler/apply"
)

// refs formats an inventory for the Repository's status.
func refs(inv apply.Inventory) []string {
	out := make([]string, 0, len(inv))
	for _, e := range inv {
		out = append(out, v1alpha1.ObjectRef{Group: e.Group, Version: e.Version, Kind: e.Kind, Namespace: e.Namespace, Name: e.Name}.String())
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// inventory is what the previous pass applied for a subscription: the
// Syncer's memory when it agrees with the status, since it carries the
// digests that let unchanged objects be skipped; else the status, whose
// entries force one more apply each. An entry the status cannot parse
// was not written by olmops and is dropped.
func (s *Syncer) inventory(id string, prev v1alpha1.SubscriptionStatus) apply.Inventory {
	s.mu.Lock()
	mem, ok := s.inventories[inventoryKey(id, prev.Namespace, prev.Name)]
	s.mu.Unlock()
	if ok && slices.Equal(refs(mem), prev.Inventory) {
		return mem
	}
	return parseInventory(prev.Inventory)
}

// parseInventory reads an inventory from a status, without digests.
func parseInventory(status []string) apply.Inventory {
	inv := make(apply.Inventory, 0, len(status))
	for _, s := range status {
		r, err := v1alpha1.ParseObjectRef(s)
		if err != nil {
			continue
		}
		inv = append(inv, apply.Entry{Group: r.Group, Version: r.Version, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name})
	}
	return inv
}

// remember keeps what a pass applied, digests included, for the next.
func (s *Syncer) remember(id, namespace, name string, inv apply.Inventory) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inventories == nil {
		s.inventories = map[string]apply.Inventory{}
	}
	k := inventoryKey(id, namespace, name)
	if inv == nil {
		delete(s.inventories, k)
		return
	}
	s.inventories[k] = inv
}

func inventoryKey(id, namespace, name string) string { return id + "\x00" + namespace + "\x00" + name }
