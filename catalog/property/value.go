package property

import (
	"bytes"
	"encoding/json"
	"fmt"

	yaml "go.yaml.in/yaml/v3"
)

// Pos is where something starts in a source file: a path and a 1-based line.
type Pos struct {
	File string
	Line int
}

func (p Pos) String() string {
	if p.Line <= 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// Format is the encoding of a raw value.
type Format uint8

const (
	// JSON bytes.
	JSON Format = iota
	// YAML bytes: a self-contained YAML node (block content may be indented).
	YAML
)

// Value is a raw value in the format it was written in.
type Value struct {
	Raw    []byte
	Format Format
}

// JSONValue wraps JSON bytes.
func JSONValue(b []byte) Value { return Value{Raw: b, Format: JSON} }

// YAMLValue wraps a YAML span.
func YAMLValue(b []byte) Value { return Value{Raw: b, Format: YAML} }

// IsZero reports whether the value is absent.
func (v Value) IsZero() bool { return len(bytes.TrimSpace(v.Raw)) == 0 }

// Decode unmarshals the value into out with encoding/json semantics,
// whatever the format it was written in.
func (v Value) Decode(out any) error {
	b, err := v.JSON()
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

// JSON returns the value as JSON bytes (compact when converted from YAML).
func (v Value) JSON() ([]byte, error) {
	if v.Format == JSON {
		if v.IsZero() {
			return []byte("null"), nil
		}
		return v.Raw, nil
	}
	var x any
	if err := yaml.Unmarshal(v.Raw, &x); err != nil {
		return nil, err
	}
	x, err := jsonable(x)
	if err != nil {
		return nil, err
	}
	return json.Marshal(x)
}

// MarshalJSON makes a Value embed as its JSON form.
func (v Value) MarshalJSON() ([]byte, error) {
	b, err := v.JSON()
	if err != nil {
		return nil, err
	}
	if v.Format == JSON {
		var buf bytes.Buffer
		if err := json.Compact(&buf, b); err != nil {
			return nil, err
		}
		return buf.Bytes(), nil
	}
	return b, nil
}

// jsonable turns what yaml.v3 decodes into values encoding/json accepts,
// refusing non-string mapping keys the way opm's YAML-to-JSON step does.
func jsonable(x any) (any, error) {
	switch t := x.(type) {
	case map[string]any:
		for k, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			ks, ok := k.(string)
			if !ok {
				return nil, fmt.Errorf("mapping key %v is not a string", k)
			}
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			m[ks] = c
		}
		return m, nil
	case []any:
		for i, e := range t {
			c, err := jsonable(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	}
	return x, nil
}
