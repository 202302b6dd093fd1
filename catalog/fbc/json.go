package fbc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/olmops/olmops/catalog/property"
)

// decodeJSONReference decodes a JSON stream with encoding/json. Nested
// objects report the line of the top-level object they belong to. Decode
// uses it for files the fast JSON path declines (those with errors).
func decodeJSONReference(path string, data []byte) (*Config, error) {
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
	// Counted first, so the index is one allocation of its final size.
	idx := make(lineIndex, 1, bytes.Count(b, []byte{'\n'})+1)
	for off := 0; ; {
		i := bytes.IndexByte(b[off:], '\n')
		if i < 0 {
			return idx
		}
		off += i + 1
		idx = append(idx, off)
	}
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
