package render

import (
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

type crdVersion struct{ served, storage bool }

// crdVersions reads spec.versions, and the storage version: the first one
// flagged, as the API server accepts exactly one.
func crdVersions(u *unstructured.Unstructured) (map[string]crdVersion, string) {
	versions := map[string]crdVersion{}
	if u == nil {
		return versions, ""
	}
	spec, _ := u.Object["spec"].(map[string]any)
	list, _ := spec["versions"].([]any)
	storage := ""
	for _, e := range list {
		m, _ := e.(map[string]any)
		name, ok := m["name"].(string)
		if !ok {
			continue
		}
		served, _ := m["served"].(bool)
		stored, _ := m["storage"].(bool)
		versions[name] = crdVersion{served: served, storage: stored}
		if stored && storage == "" {
			storage = name
		}
	}
	return versions, storage
}

func crdChange(o, n *unstructured.Unstructured) (CRDChange, bool) {
	before, from := crdVersions(o)
	after, to := crdVersions(n)
	var cc CRDChange
	if n != nil {
		cc.CRD = refOfObject(n)
	} else {
		cc.CRD = refOfObject(o)
	}
	for name, v := range before {
		w, kept := after[name]
		if !kept {
			cc.VersionsRemoved = append(cc.VersionsRemoved, name)
		}
		if v.served && !w.served {
			cc.StoppedServing = append(cc.StoppedServing, name)
		}
		if kept && !v.served && w.served {
			cc.StartedServing = append(cc.StartedServing, name)
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			cc.VersionsAdded = append(cc.VersionsAdded, name)
		}
	}
	if from != to {
		cc.StorageFrom, cc.StorageTo = from, to
	}
	for _, l := range [][]string{cc.VersionsAdded, cc.VersionsRemoved, cc.StoppedServing, cc.StartedServing} {
		slices.Sort(l)
	}
	cc.Breaks = crdBreaks(o, n)
	changed := len(cc.VersionsAdded)+len(cc.VersionsRemoved)+len(cc.StoppedServing)+len(cc.StartedServing)+len(cc.Breaks) > 0 || from != to
	return cc, changed
}
