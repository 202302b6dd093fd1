package property

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

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

// Value is a raw value in the format it was written in. It holds its bytes,
// or, for the large values a catalog carries, only where they are in their
// file, read back when used: a loaded catalog then costs memory for what
// validation and resolution need, not for every CSV it mentions.
type Value struct {
	raw    []byte
	ref    *span
	Format Format
}

// span is a byte range of a file, read back through src.
type span struct {
	src io.ReaderAt
	off int64
	n   int
}

// JSONValue wraps JSON bytes.
func JSONValue(b []byte) Value { return Value{raw: b, Format: JSON} }

// YAMLValue wraps a YAML span.
func YAMLValue(b []byte) Value { return Value{raw: b, Format: YAML} }

// Bytes returns the value as written, reading it back from its file when
// it is held by reference.
func (v Value) Bytes() ([]byte, error) {
	if v.ref == nil {
		return v.raw, nil
	}
	b := make([]byte, v.ref.n)
	if _, err := v.ref.src.ReadAt(b, v.ref.off); err != nil {
		return nil, fmt.Errorf("read value back from its file: %w", err)
	}
	return b, nil
}

// Len is the size of the value as written.
func (v Value) Len() int {
	if v.ref != nil {
		return v.ref.n
	}
	return len(v.raw)
}

// Detach lets go of buf, the file the value was decoded from: a value that
// is a slice of buf is copied when shorter than limit, and otherwise kept
// as a reference to the same bytes in src (which must read the same file).
// A value that does not point into buf is returned as it is.
func (v Value) Detach(buf []byte, src io.ReaderAt, limit int) Value {
	off, ok := offsetIn(buf, v.raw)
	switch {
	case !ok:
		return v
	case len(v.raw) < limit:
		v.raw = bytes.Clone(v.raw)
	default:
		v.ref, v.raw = &span{src: src, off: int64(off), n: len(v.raw)}, nil
	}
	return v
}

// offsetIn finds where sub starts inside buf, if sub is a slice of it.
func offsetIn(buf, sub []byte) (int, bool) {
	if len(sub) == 0 || len(buf) == 0 {
		return 0, false
	}
	off := cap(buf) - cap(sub)
	if off < 0 || off+len(sub) > len(buf) || &buf[off] != &sub[0] {
		return 0, false
	}
	return off, true
}

// IsZero reports whether the value is absent.
func (v Value) IsZero() bool {
	if v.ref != nil {
		return false
	}
	return len(bytes.TrimSpace(v.raw)) == 0
}

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
	raw, err := v.Bytes()
	if err != nil {
		return nil, err
	}
	if v.Format == JSON {
		if len(bytes.TrimSpace(raw)) == 0 {
			return []byte("null"), nil
		}
		return raw, nil
	}
	// Through a node, so that a key written twice keeps its last value,
	// as opm reads it, where yaml.v3 alone refuses the mapping.
	var n yaml.Node
	if err := yaml.Unmarshal(raw, &n); err != nil {
		return nil, err
	}
	DropDuplicateKeys(&n)
	var x any
	if err := n.Decode(&x); err != nil {
		return nil, err
	}
	x, err = jsonable(x)
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
