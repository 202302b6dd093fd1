package render

import (
	"fmt"
	"reflect"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// crdBreaks lists what replacing CRD o by n may break for objects the
// cluster holds, by OLM v1's crdUpgradeSafety rules: scope changed,
// versions removed or no longer served, and, per version both sides
// have, fields removed, fields newly required, types changed, enums
// narrowed, bounds or patterns tightened, defaults changed. The result is
// sorted; nil when o or n is missing.
func crdBreaks(o, n *unstructured.Unstructured) []string {
	if o == nil || n == nil {
		return nil
	}
	var out []string
	if a, b := str(o.Object, "spec", "scope"), str(n.Object, "spec", "scope"); a != b {
		out = append(out, fmt.Sprintf("scope changes from %s to %s", a, b))
	}
	olds, news := crdSchemas(o), crdSchemas(n)
	for name, os := range olds {
		ns, ok := news[name]
		if !ok {
			out = append(out, fmt.Sprintf("version %s is removed", name))
			continue
		}
		out = append(out, schemaBreaks(name, os, ns)...)
	}
	slices.Sort(out)
	return out
}

// crdSchemas maps each version of a CRD to its openAPIV3Schema (nil when
// it has none).
func crdSchemas(crd *unstructured.Unstructured) map[string]map[string]any {
	vs, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	out := map[string]map[string]any{}
	for _, v := range vs {
		m, ok := v.(map[string]any)
		if !ok {
			continue
		}
		name, _ := m["name"].(string)
		s, _, _ := unstructured.NestedMap(m, "schema", "openAPIV3Schema")
		out[name] = s
	}
	return out
}

func str(m map[string]any, path ...string) string {
	s, _, _ := unstructured.NestedString(m, path...)
	return s
}

// schemaBreaks compares one schema node and its children.
func schemaBreaks(path string, o, n map[string]any) []string {
	if o == nil || n == nil {
		return nil
	}
	var out []string
	add := func(format string, args ...any) { out = append(out, path+": "+fmt.Sprintf(format, args...)) }
	if a, b := o["type"], n["type"]; a != nil && !reflect.DeepEqual(a, b) {
		add("type changes from %v to %v", a, b)
	}
	if a, b := o["default"], n["default"]; !reflect.DeepEqual(a, b) {
		add("default changes from %v to %v", show(a), show(b))
	}
	if narrowedEnum(o["enum"], n["enum"]) {
		add("enum narrows from %v to %v", show(o["enum"]), show(n["enum"]))
	}
	if a, b := o["pattern"], n["pattern"]; b != nil && !reflect.DeepEqual(a, b) {
		add("pattern changes from %v to %v", show(a), show(b))
	}
	for _, k := range []string{"minimum", "minLength", "minItems", "minProperties"} {
		if tighter(o[k], n[k], 1) {
			add("%s rises from %v to %v", k, show(o[k]), show(n[k]))
		}
	}
	for _, k := range []string{"maximum", "maxLength", "maxItems", "maxProperties"} {
		if tighter(o[k], n[k], -1) {
			add("%s falls from %v to %v", k, show(o[k]), show(n[k]))
		}
	}
	oldReq, newReq := stringList(o["required"]), stringList(n["required"])
	for _, r := range newReq {
		if !slices.Contains(oldReq, r) {
			add("%s becomes required", r)
		}
	}
	op, _ := o["properties"].(map[string]any)
	np, _ := n["properties"].(map[string]any)
	for name, ov := range op {
		nv, ok := np[name]
		if !ok {
			add("field %s is removed", name)
			continue
		}
		om, _ := ov.(map[string]any)
		nm, _ := nv.(map[string]any)
		out = append(out, schemaBreaks(path+"."+name, om, nm)...)
	}
	oi, _ := o["items"].(map[string]any)
	ni, _ := n["items"].(map[string]any)
	return append(out, schemaBreaks(path+"[*]", oi, ni)...)
}

func show(v any) any {
	if v == nil {
		return "none"
	}
	return v
}

// narrowedEnum: an enum appears, or loses a value.
func narrowedEnum(o, n any) bool {
	ns, ok := n.([]any)
	if !ok {
		return false
	}
	os, ok := o.([]any)
	if !ok {
		return true
	}
	return slices.ContainsFunc(os, func(v any) bool {
		return !slices.ContainsFunc(ns, func(w any) bool { return reflect.DeepEqual(v, w) })
	})
}

// tighter: a bound appears, or moves in direction dir (1 up, -1 down).
func tighter(o, n any, dir float64) bool {
	b, ok := number(n)
	if !ok {
		return false
	}
	a, ok := number(o)
	return !ok || (b-a)*dir > 0
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func stringList(v any) []string {
	l, _ := v.([]any)
	var out []string
	for _, x := range l {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}
