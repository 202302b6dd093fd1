package render

import (
	"reflect"
	"slices"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

var ignoredMetadata = map[string]bool{
	"resourceVersion": true, "generation": true, "uid": true, "creationTimestamp": true, "managedFields": true,
}

func diffObjects(a, b *unstructured.Unstructured) []string {
	var d differ
	d.maps("", withoutServerFields(a.Object), withoutServerFields(b.Object), keyPath)
	return d.paths
}

func withoutServerFields(obj map[string]any) map[string]any {
	out := make(map[string]any, len(obj))
	for k, v := range obj {
		if k != "status" {
			out[k] = v
		}
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		kept := make(map[string]any, len(md))
		for k, v := range md {
			if !ignoredMetadata[k] {
				kept[k] = v
			}
		}
		out["metadata"] = kept
	}
	return out
}

// differ collects the paths at which two JSON-like values differ, in key order.
type differ struct{ paths []string }

func (d *differ) value(path string, a, b any) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			d.maps(path, av, bv, keyPath)
			return
		}
	case []any:
		if bv, ok := b.([]any); ok {
			d.lists(path, av, bv)
			return
		}
	}
	if !scalarEqual(a, b) {
		d.paths = append(d.paths, path)
	}
}

// maps compares two maps key by key; join builds a child's path from its key.
func (d *differ) maps(path string, a, b map[string]any, join func(path, key string) string) {
	keys := make([]string, 0, len(a)+len(b))
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		av, aok := a[k]
		bv, bok := b[k]
		switch {
		case aok == bok:
			d.value(join(path, k), av, bv)
		case av != nil || bv != nil: // an explicit null is as unset as an absent key
			d.paths = append(d.paths, join(path, k))
		}
	}
}

// lists compares lists of named objects (containers, env, ports, volumes) by
// name, so reordering them is not a change; other lists compare by position.
func (d *differ) lists(path string, a, b []any) {
	if an, ok := listByName(a); ok {
		if bn, ok := listByName(b); ok {
			d.maps(path, an, bn, namePath)
			return
		}
	}
	if len(a) != len(b) {
		d.paths = append(d.paths, path)
		return
	}
	for i := range a {
		d.value(path+"["+strconv.Itoa(i)+"]", a[i], b[i])
	}
}

// listByName indexes a list by its elements' "name" when every element is an
// object with a distinct string name.
func listByName(list []any) (map[string]any, bool) {
	m := make(map[string]any, len(list))
	for _, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		name, ok := obj["name"].(string)
		if _, dup := m[name]; !ok || dup {
			return nil, false
		}
		m[name] = obj
	}
	return m, true
}

// scalarEqual compares leaves; numbers compare by value because decoders
// disagree on int64 versus float64.
func scalarEqual(a, b any) bool {
	if x, ok := a.(int64); ok {
		if y, ok := b.(int64); ok {
			return x == y // exact beyond float64's 53 bits
		}
	}
	if x, ok := asNumber(a); ok {
		y, ok := asNumber(b)
		return ok && x == y
	}
	return reflect.DeepEqual(a, b)
}

func asNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case int64:
		return float64(n), true
	case int:
		return float64(n), true
	case int32:
		return float64(n), true
	case float64:
		return n, true
	case float32:
		return float64(n), true
	}
	return 0, false
}

func keyPath(path, key string) string {
	if !plainSegment(key, false) {
		return path + "[" + strconv.Quote(key) + "]"
	}
	if path == "" {
		return key
	}
	return path + "." + key
}

// namePath writes list elements as path[name]; names that could be read as an
// index or that hold brackets are quoted.
func namePath(path, name string) string {
	if _, err := strconv.Atoi(name); err == nil || !plainSegment(name, true) {
		name = strconv.Quote(name)
	}
	return path + "[" + name + "]"
}

func plainSegment(s string, dots bool) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		ok := r == '-' || r == '_' || (dots && r == '.') ||
			('a' <= r && r <= 'z') || ('A' <= r && r <= 'Z') || ('0' <= r && r <= '9')
		if !ok {
			return false
		}
	}
	return true
}
