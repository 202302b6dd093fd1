package subscription

import (
	"fmt"
	"math"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Error is one problem in a file, at the line it is about.
type Error struct {
	// Pos is the file and line the problem is about.
	Pos Pos
	// Msg says what is wrong.
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

// Limits that keep a hostile file (alias bombs, deep nesting) cheap.
const (
	maxDepth    = 100
	maxRawNodes = 100_000
)

// decoder walks the yaml.Node tree of one object and collects every problem.
type decoder struct {
	path string
	kind Kind
	errs []error
	// lines holds the line of each field seen, by dotted path
	// ("spec.name"), so later validation can point at it.
	lines map[string]int
	// rawNodes counts nodes converted to raw values in this object.
	rawNodes  int
	rawTooBig bool
	// bad holds the fields that had a type error, so validation does not
	// report them again as missing.
	bad map[string]bool
}

// typeError reports a field of the wrong type.
func (d *decoder) typeError(n *yaml.Node, field, want string) {
	if d.bad == nil {
		d.bad = map[string]bool{}
	}
	d.bad[field] = true
	d.errorf(n, "%s must be %s, not %s", d.where(field), want, kindName(n))
}

func (d *decoder) pos(n *yaml.Node) Pos {
	if n == nil {
		return Pos{File: d.path}
	}
	return Pos{File: d.path, Line: n.Line}
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.errs = append(d.errs, &Error{Pos: d.pos(n), Msg: fmt.Sprintf(format, args...)})
}

// where names a field for messages: "Subscription spec".
func (d *decoder) where(field string) string {
	switch {
	case d.kind == "":
		return field
	case field == "":
		return string(d.kind)
	}
	return string(d.kind) + " " + field
}

func join(field, key string) string {
	if field == "" {
		return key
	}
	return field + "." + key
}

func resolve(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode; depth++ {
		if depth >= maxDepth {
			return nil
		}
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n == nil || (n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null")
}

// kindName names a node's type for messages.
func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!int", "!!float":
			return "a number"
		case "!!bool":
			return "a boolean"
		case "!!str":
			return "a string"
		}
	}
	return "a " + strings.TrimPrefix(n.ShortTag(), "!!")
}

// fields checks that n is a mapping with only the known keys and returns its
// values by key. A null n is an empty mapping. Unknown keys, duplicate keys
// and non-string keys are errors at their line; other problems of n are
// reported at n's line.
func (d *decoder) fields(n *yaml.Node, field string, known ...string) map[string]*yaml.Node {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.typeError(n, field, "a mapping")
		return nil
	}
	out := make(map[string]*yaml.Node, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := resolve(n.Content[i]), n.Content[i+1]
		if k == nil || k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.errorf(n.Content[i], "%s has a key that is not a string", d.where(field))
			continue
		}
		if !contains(known, k.Value) {
			d.errorf(k, "unknown field %q in %s", k.Value, d.where(field))
			continue
		}
		if _, dup := out[k.Value]; dup {
			d.errorf(k, "duplicate field %q in %s", k.Value, d.where(field))
			continue
		}
		out[k.Value] = v
		if d.lines != nil {
			d.lines[join(field, k.Value)] = k.Line
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// str returns the string value of a field; absent or null is "".
func (d *decoder) str(n *yaml.Node, field string) string {
	n = resolve(n)
	if isNull(n) {
		return ""
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		d.typeError(n, field, "a string")
		return ""
	}
	return n.Value
}

// strs returns a list of strings; absent or null is nil.
func (d *decoder) strs(n *yaml.Node, field string) []string {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.SequenceNode {
		d.typeError(n, field, "a list of strings")
		return nil
	}
	out := make([]string, 0, len(n.Content))
	for i, e := range n.Content {
		item := fmt.Sprintf("%s[%d]", field, i)
		if r := resolve(e); isNull(r) || (r.ShortTag() == "!!str" && r.Value == "") {
			d.errorf(e, "%s must not be empty", d.where(item))
			continue
		}
		if s := d.str(e, item); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// integer checks that a field is an integer.
func (d *decoder) integer(n *yaml.Node, field string) {
	n = resolve(n)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
		d.errorf(n, "%s must be an integer, not %s", d.where(field), kindName(n))
		return
	}
	var i int64
	if err := n.Decode(&i); err != nil || i < math.MinInt32 || i > math.MaxInt32 {
		d.errorf(n, "%s: %s is out of range", d.where(field), n.Value)
	}
}

// stringMap checks a mapping of strings to strings (labels, annotations).
func (d *decoder) stringMap(n *yaml.Node, field string) map[string]string {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, not %s", d.where(field), kindName(n))
		return nil
	}
	out := make(map[string]string, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := resolve(n.Content[i])
		if k == nil || k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.errorf(n.Content[i], "%s has a key that is not a string", d.where(field))
			continue
		}
		key := join(field, k.Value)
		v := resolve(n.Content[i+1])
		if !isNull(v) && (v.Kind != yaml.ScalarNode || v.ShortTag() != "!!str") {
			d.errorf(n.Content[i+1], "%s must be a string, not %s", d.where(key), kindName(v))
			continue
		}
		out[k.Value] = ""
		if !isNull(v) {
			out[k.Value] = v.Value
		}
		if d.lines != nil {
			d.lines[key] = k.Line
		}
	}
	return out
}

// rawMap converts a mapping into JSON-compatible values; nil when absent.
func (d *decoder) rawMap(n *yaml.Node, field string) map[string]any {
	n = resolve(n)
	if isNull(n) {
		return nil
	}
	if n.Kind != yaml.MappingNode {
		d.errorf(n, "%s must be a mapping, not %s", d.where(field), kindName(n))
		return nil
	}
	v, ok := d.raw(n, field, 0)
	if !ok {
		return nil
	}
	return v.(map[string]any)
}

// raw converts a node into map[string]any, []any, string, int64, float64,
// bool or nil, reporting what JSON cannot hold.
func (d *decoder) raw(n *yaml.Node, field string, depth int) (any, bool) {
	d.rawNodes++
	if d.rawNodes > maxRawNodes || depth > maxDepth {
		if !d.rawTooBig {
			d.rawTooBig = true
			d.errorf(n, "%s is too large or too deeply nested", d.where(field))
		}
		return nil, false
	}
	orig := n
	n = resolve(n)
	if n == nil {
		d.errorf(orig, "%s: alias chain too deep", d.where(field))
		return nil, false
	}
	switch n.Kind {
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		ok := true
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := resolve(n.Content[i])
			if k == nil || k.Kind != yaml.ScalarNode || (k.ShortTag() != "!!str" && k.ShortTag() != "!!int" && k.ShortTag() != "!!bool") {
				d.errorf(n.Content[i], "%s has a key that is not a string", d.where(field))
				ok = false
				continue
			}
			if _, dup := m[k.Value]; dup {
				d.errorf(k, "duplicate field %q in %s", k.Value, d.where(field))
				ok = false
				continue
			}
			v, vok := d.raw(n.Content[i+1], join(field, k.Value), depth+1)
			ok = ok && vok
			m[k.Value] = v
		}
		return m, ok
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		ok := true
		for i, e := range n.Content {
			v, vok := d.raw(e, fmt.Sprintf("%s[%d]", field, i), depth+1)
			ok = ok && vok
			s = append(s, v)
		}
		return s, ok
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return nil, true
		case "!!bool":
			var b bool
			if err := n.Decode(&b); err != nil {
				d.errorf(n, "%s: %v", d.where(field), err)
				return nil, false
			}
			return b, true
		case "!!int":
			var i int64
			if err := n.Decode(&i); err == nil {
				return i, true
			}
			fallthrough
		case "!!float":
			var f float64
			if err := n.Decode(&f); err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
				d.errorf(n, "%s: %q is not a number JSON can hold", d.where(field), n.Value)
				return nil, false
			}
			return f, true
		default:
			return n.Value, true
		}
	}
	d.errorf(n, "%s holds an unsupported YAML node", d.where(field))
	return nil, false
}
