package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/olmops/olmops/catalog/yamllimit"
	"io"

	"github.com/olmops/olmops/catalog/property"
	yaml "go.yaml.in/yaml/v3"
)

// decodeYAMLReference decodes a YAML stream through yaml.v3 nodes. It
// understands all of YAML and is the oracle the fast path is tested
// against; Decode uses it for any file the fast path declines.
func decodeYAMLReference(path string, data []byte) (*Config, error) {
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
		if err := yamllimit.CheckNode(path, &doc, 0); err != nil {
			var le *yamllimit.Error
			errors.As(err, &le)
			errs = append(errs, &Error{Pos: Pos{File: path, Line: le.Line}, Msg: le.Msg})
			continue
		}
		n := doc.Content[0]
		for _, d := range property.DropDuplicateKeys(n) {
			c.Warnings = append(c.Warnings, Warning{Pos: Pos{File: path, Line: d.Line},
				Msg: fmt.Sprintf("duplicate key %q (first at line %d); the last value is used, as opm reads it", d.Key, d.First)})
		}
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

// yamlNodeJSON converts a node to JSON the way property.Value.JSON converts
// the same text: decoded by yaml.v3, then encoded by encoding/json (which
// refuses the non-string keys property.Value.JSON refuses).
func yamlNodeJSON(n *yaml.Node) ([]byte, error) {
	var x any
	if err := n.Decode(&x); err != nil {
		return nil, err
	}
	return json.Marshal(x)
}
