package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/olmops/olmops/catalog/property"
	yaml "go.yaml.in/yaml/v3"
)

// Decode reads every object of one catalog file. The file is a stream of
// YAML documents or of concatenated JSON objects (sniffed from its first
// non-space byte, as opm does). path is used for positions only.
//
// Decode reports every problem it can find in the file; on error the
// returned Config holds the objects that did decode.
func Decode(path string, data []byte) (*Config, error) {
	if isJSON(data) {
		return decodeJSON(path, data)
	}
	return decodeYAML(path, data)
}

func isJSON(data []byte) bool {
	t := bytes.TrimLeft(data, " \t\r\n")
	return len(t) > 0 && t[0] == '{'
}

// meta is the part every object shares; the builder dispatches on Schema.
type object struct {
	pos    Pos
	schema string
	fields fieldSource
}

// fieldSource reads the fields of one object, whatever the file format.
type fieldSource interface {
	str(key string) (string, error)
	strList(key string) ([]string, error)
	raw(key string) (property.Value, Pos, bool)
	list(key string) ([]fieldSource, error)
	pos() Pos
	value() property.Value
}

// build turns one object into the typed object of its schema and adds it to c.
func build(c *Config, o object) error {
	f := o.fields
	var errs []error
	str := func(k string) string {
		s, err := f.str(k)
		if err != nil {
			errs = append(errs, err)
		}
		return s
	}
	props := func() []property.Property {
		p, err := properties(f)
		if err != nil {
			errs = append(errs, err)
		}
		return p
	}
	switch o.schema {
	case SchemaPackage:
		p := Package{Pos: o.pos, Name: str("name"), DefaultChannel: str("defaultChannel"), Description: str("description"), Properties: props()}
		if v, _, ok := f.raw("icon"); ok && !v.IsZero() {
			p.Icon = &v
		}
		c.Packages = append(c.Packages, p)
	case SchemaChannel:
		ch := Channel{Pos: o.pos, Package: str("package"), Name: str("name"), Properties: props()}
		entries, err := f.list("entries")
		errs = append(errs, err)
		for _, e := range entries {
			entry, err := channelEntry(e)
			errs = append(errs, err)
			ch.Entries = append(ch.Entries, entry)
		}
		c.Channels = append(c.Channels, ch)
	case SchemaBundle:
		b := Bundle{Pos: o.pos, Package: str("package"), Name: str("name"), Image: str("image"), Properties: props()}
		imgs, err := f.list("relatedImages")
		errs = append(errs, err)
		for _, ri := range imgs {
			name, err1 := ri.str("name")
			image, err2 := ri.str("image")
			errs = append(errs, err1, err2)
			b.RelatedImages = append(b.RelatedImages, RelatedImage{Name: name, Image: image})
		}
		c.Bundles = append(c.Bundles, b)
	case SchemaDeprecations:
		d := Deprecation{Pos: o.pos, Package: str("package")}
		entries, err := f.list("entries")
		errs = append(errs, err)
		for _, e := range entries {
			entry, err := deprecationEntry(e)
			errs = append(errs, err)
			d.Entries = append(d.Entries, entry)
		}
		c.Deprecations = append(c.Deprecations, d)
	default:
		c.Others = append(c.Others, Blob{Pos: o.pos, Schema: o.schema, Package: str("package"), Name: str("name"), Value: f.value()})
	}
	return errors.Join(errs...)
}

func channelEntry(f fieldSource) (ChannelEntry, error) {
	name, err1 := f.str("name")
	replaces, err2 := f.str("replaces")
	skips, err3 := f.strList("skips")
	skipRange, err4 := f.str("skipRange")
	e := ChannelEntry{Pos: f.pos(), Name: name, Replaces: replaces, Skips: skips, SkipRange: skipRange}
	return e, errors.Join(err1, err2, err3, err4)
}

func deprecationEntry(f fieldSource) (DeprecationEntry, error) {
	msg, err := f.str("message")
	e := DeprecationEntry{Pos: f.pos(), Message: msg}
	refs, err2 := f.list("reference")
	errs := []error{err, err2}
	if ref := single(refs); ref != nil {
		var e1, e2 error
		e.Schema, e1 = ref.str("schema")
		e.Name, e2 = ref.str("name")
		errs = append(errs, e1, e2)
	}
	return e, errors.Join(errs...)
}

func single(l []fieldSource) fieldSource {
	if len(l) == 1 {
		return l[0]
	}
	return nil
}

func properties(f fieldSource) ([]property.Property, error) {
	items, err := f.list("properties")
	if err != nil || len(items) == 0 {
		return nil, err
	}
	props := make([]property.Property, 0, len(items))
	var errs []error
	for _, it := range items {
		typ, err := it.str("type")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if typ == "" {
			errs = append(errs, &Error{Pos: it.pos(), Msg: "property has no type"})
			continue
		}
		v, _, _ := it.raw("value")
		props = append(props, property.Property{Pos: it.pos(), Type: typ, Value: v})
	}
	return props, errors.Join(errs...)
}

// ---- YAML ----

func decodeYAML(path string, data []byte) (*Config, error) {
	c := &Config{}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var errs []error
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		if err == io.EOF {
			break
		}
		if err != nil {
			errs = append(errs, &Error{Pos: Pos{File: path, Line: yamlErrLine(err)}, Msg: "invalid YAML", Err: err})
			break // the decoder cannot resynchronise after a syntax error
		}
		if len(doc.Content) == 0 {
			continue
		}
		n := doc.Content[0]
		if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
			continue
		}
		f := yamlFields{path: path, n: n}
		if n.Kind != yaml.MappingNode {
			errs = append(errs, &Error{Pos: f.pos(), Msg: "catalog object must be a mapping"})
			continue
		}
		schema, err := f.str("schema")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if schema == "" {
			errs = append(errs, &Error{Pos: f.pos(), Msg: "object has no schema"})
			continue
		}
		if err := build(c, object{pos: f.pos(), schema: schema, fields: f}); err != nil {
			errs = append(errs, err)
		}
	}
	return c, errors.Join(errs...)
}

// yamlErrLine pulls the line out of a yaml.v3 error ("yaml: line 12: ...").
func yamlErrLine(err error) int {
	var line int
	msg := err.Error()
	if _, e := fmt.Sscanf(msg, "yaml: line %d:", &line); e == nil {
		return line
	}
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		fmt.Sscanf(te.Errors[0], "line %d:", &line)
	}
	return line
}

type yamlFields struct {
	path string
	n    *yaml.Node
}

func (f yamlFields) pos() Pos { return Pos{File: f.path, Line: f.n.Line} }

func (f yamlFields) get(key string) *yaml.Node {
	if f.n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(f.n.Content); i += 2 {
		if f.n.Content[i].Value == key {
			return resolveAlias(f.n.Content[i+1])
		}
	}
	return nil
}

func resolveAlias(n *yaml.Node) *yaml.Node {
	for depth := 0; n != nil && n.Kind == yaml.AliasNode && depth < 64; depth++ {
		n = n.Alias
	}
	return n
}

func (f yamlFields) str(key string) (string, error) {
	v := f.get(key)
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return "", nil
	}
	if v.Kind != yaml.ScalarNode {
		return "", &Error{Pos: Pos{File: f.path, Line: v.Line}, Msg: fmt.Sprintf("field %q must be a string", key)}
	}
	return v.Value, nil
}

func (f yamlFields) strList(key string) ([]string, error) {
	v := f.get(key)
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return nil, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, &Error{Pos: Pos{File: f.path, Line: v.Line}, Msg: fmt.Sprintf("field %q must be a list of strings", key)}
	}
	out := make([]string, 0, len(v.Content))
	for _, e := range v.Content {
		e = resolveAlias(e)
		if e.Kind != yaml.ScalarNode {
			return nil, &Error{Pos: Pos{File: f.path, Line: e.Line}, Msg: fmt.Sprintf("field %q must be a list of strings", key)}
		}
		out = append(out, e.Value)
	}
	return out, nil
}

func (f yamlFields) list(key string) ([]fieldSource, error) {
	v := f.get(key)
	if v == nil || (v.Kind == yaml.ScalarNode && v.Tag == "!!null") {
		return nil, nil
	}
	if v.Kind == yaml.MappingNode && key == "reference" {
		return []fieldSource{yamlFields{path: f.path, n: v}}, nil
	}
	if v.Kind != yaml.SequenceNode {
		return nil, &Error{Pos: Pos{File: f.path, Line: v.Line}, Msg: fmt.Sprintf("field %q must be a list", key)}
	}
	out := make([]fieldSource, 0, len(v.Content))
	for _, e := range v.Content {
		e = resolveAlias(e)
		if e.Kind != yaml.MappingNode {
			return nil, &Error{Pos: Pos{File: f.path, Line: e.Line}, Msg: fmt.Sprintf("items of %q must be mappings", key)}
		}
		out = append(out, yamlFields{path: f.path, n: e})
	}
	return out, nil
}

func (f yamlFields) raw(key string) (property.Value, Pos, bool) {
	v := f.get(key)
	if v == nil {
		return property.Value{}, Pos{}, false
	}
	b, err := yamlNodeJSON(v)
	if err != nil {
		// Kept as YAML: Decode reports the problem when the value is used.
		out, _ := yaml.Marshal(v)
		return property.YAMLValue(out), Pos{File: f.path, Line: v.Line}, true
	}
	return property.JSONValue(b), Pos{File: f.path, Line: v.Line}, true
}

func (f yamlFields) value() property.Value {
	b, err := yamlNodeJSON(f.n)
	if err != nil {
		out, _ := yaml.Marshal(f.n)
		return property.YAMLValue(out)
	}
	return property.JSONValue(b)
}

func yamlNodeJSON(n *yaml.Node) ([]byte, error) {
	var x any
	if err := n.Decode(&x); err != nil {
		return nil, err
	}
	out, err := yaml.Marshal(x)
	if err != nil {
		return nil, err
	}
	return property.YAMLValue(out).JSON()
}

// ---- JSON ----

func decodeJSON(path string, data []byte) (*Config, error) {
	c := &Config{}
	dec := json.NewDecoder(bytes.NewReader(data))
	var errs []error
	lines := newLineIndex(data)
	for {
		start := skipSpace(data, int(dec.InputOffset()))
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		pos := Pos{File: path, Line: lines.line(start)}
		if err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				pos.Line = lines.line(int(se.Offset))
			}
			errs = append(errs, &Error{Pos: pos, Msg: "invalid JSON", Err: err})
			break
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(raw, &m); err != nil {
			errs = append(errs, &Error{Pos: pos, Msg: "catalog object must be a JSON object", Err: err})
			continue
		}
		f := jsonFields{p: pos, m: m, self: raw}
		schema, err := f.str("schema")
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if schema == "" {
			errs = append(errs, &Error{Pos: pos, Msg: "object has no schema"})
			continue
		}
		if err := build(c, object{pos: pos, schema: schema, fields: f}); err != nil {
			errs = append(errs, err)
		}
	}
	return c, errors.Join(errs...)
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// jsonFields reads one JSON object. Nested objects report the line of the
// top-level object they belong to.
type jsonFields struct {
	p    Pos
	m    map[string]json.RawMessage
	self json.RawMessage
}

func (f jsonFields) pos() Pos              { return f.p }
func (f jsonFields) value() property.Value { return property.JSONValue(f.self) }

func (f jsonFields) str(key string) (string, error) {
	v, ok := f.m[key]
	if !ok || string(v) == "null" {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", &Error{Pos: f.p, Msg: fmt.Sprintf("field %q must be a string", key)}
	}
	return s, nil
}

func (f jsonFields) strList(key string) ([]string, error) {
	v, ok := f.m[key]
	if !ok || string(v) == "null" {
		return nil, nil
	}
	var s []string
	if err := json.Unmarshal(v, &s); err != nil {
		return nil, &Error{Pos: f.p, Msg: fmt.Sprintf("field %q must be a list of strings", key)}
	}
	return s, nil
}

func (f jsonFields) list(key string) ([]fieldSource, error) {
	v, ok := f.m[key]
	if !ok || string(v) == "null" {
		return nil, nil
	}
	if key == "reference" {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(v, &m); err == nil {
			return []fieldSource{jsonFields{p: f.p, m: m, self: v}}, nil
		}
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, &Error{Pos: f.p, Msg: fmt.Sprintf("field %q must be a list", key)}
	}
	out := make([]fieldSource, 0, len(items))
	for _, it := range items {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(it, &m); err != nil {
			return nil, &Error{Pos: f.p, Msg: fmt.Sprintf("items of %q must be objects", key)}
		}
		out = append(out, jsonFields{p: f.p, m: m, self: it})
	}
	return out, nil
}

func (f jsonFields) raw(key string) (property.Value, Pos, bool) {
	v, ok := f.m[key]
	if !ok {
		return property.Value{}, Pos{}, false
	}
	return property.JSONValue(v), f.p, true
}

// lineIndex maps byte offsets to 1-based lines.
type lineIndex []int

func newLineIndex(b []byte) lineIndex {
	idx := lineIndex{0}
	for i, c := range b {
		if c == '\n' {
			idx = append(idx, i+1)
		}
	}
	return idx
}

func (l lineIndex) line(off int) int {
	lo, hi := 0, len(l)
	for lo+1 < hi {
		mid := (lo + hi) / 2
		if l[mid] <= off {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + 1
}
