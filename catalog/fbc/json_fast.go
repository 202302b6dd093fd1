package fbc

import (
	"encoding/json"
	"unicode/utf8"

	"github.com/olmops/olmops/catalog/property"
)

// The fast JSON path validates each top-level object in one pass,
// recording where every field's value sits, and decodes a value only when
// the object builder asks for it. Nested objects (channel entries,
// properties, related images) get the line of their own '{'. Any problem
// sends the file to the reference decoder, which words the error.

// maxJSONDepth is encoding/json's nesting limit.
const maxJSONDepth = 10000

type jparser struct {
	path  string
	data  []byte
	lines lineIndex
	depth int
}

// jobject is one JSON object: its fields in order and where their values
// sit.
type jobject struct {
	p    *jparser
	off  int // offset of the '{'
	end  int // offset after the '}'
	keys []string
	vals [][2]int
}

func decodeJSONFast(path string, data []byte) (c *Config, ok bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	defer fallBack(&c, &ok)
	p := &jparser{path: path, data: data, lines: newLineIndex(data)}
	c = &Config{}
	for i := skipSpace(data, 0); i < len(data); i = skipSpace(data, i) {
		if data[i] != '{' {
			bail("top-level value is not an object")
		}
		o := p.object(i)
		f := jfields{o}
		schema, err := f.str("schema")
		if err != nil || schema == "" {
			bail("no schema")
		}
		if err := build(c, object{pos: f.pos(), schema: schema, fields: f}); err != nil {
			bail("%v", err)
		}
		i = o.end
	}
	return c, true
}

func bail(format string, args ...any) {
	panic(errBail{format})
}

// object reads the object at data[i] == '{', validating its values.
func (p *jparser) object(i int) *jobject {
	o := &jobject{p: p, off: i}
	d := p.data
	i = skipSpace(d, i+1)
	if i < len(d) && d[i] == '}' {
		o.end = i + 1
		return o
	}
	for {
		if i >= len(d) || d[i] != '"' {
			bail("expected a key")
		}
		kend := p.skipString(i)
		o.keys = append(o.keys, p.unquote(i, kend))
		i = skipSpace(d, kend)
		if i >= len(d) || d[i] != ':' {
			bail("expected ':'")
		}
		i = skipSpace(d, i+1)
		vend := p.skipValue(i)
		o.vals = append(o.vals, [2]int{i, vend})
		i = skipSpace(d, vend)
		if i < len(d) && d[i] == ',' {
			i = skipSpace(d, i+1)
			continue
		}
		if i < len(d) && d[i] == '}' {
			o.end = i + 1
			return o
		}
		bail("expected ',' or '}'")
	}
}

// skipValue validates the value at data[i] and returns the offset after it.
func (p *jparser) skipValue(i int) int {
	d := p.data
	if i >= len(d) {
		bail("unexpected end")
	}
	switch c := d[i]; {
	case c == '"':
		return p.skipString(i)
	case c == '{' || c == '[':
		p.depth++
		if p.depth > maxJSONDepth {
			bail("nested too deep")
		}
		defer func() { p.depth-- }()
		closer := byte('}')
		if c == '[' {
			closer = ']'
		}
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == closer {
			return i + 1
		}
		for {
			if c == '{' {
				if i >= len(d) || d[i] != '"' {
					bail("expected a key")
				}
				i = skipSpace(d, p.skipString(i))
				if i >= len(d) || d[i] != ':' {
					bail("expected ':'")
				}
				i = skipSpace(d, i+1)
			}
			i = skipSpace(d, p.skipValue(i))
			if i < len(d) && d[i] == ',' {
				i = skipSpace(d, i+1)
				continue
			}
			if i < len(d) && d[i] == closer {
				return i + 1
			}
			bail("expected ',' or a closing bracket")
		}
	case c == 't':
		return p.literal(i, "true")
	case c == 'f':
		return p.literal(i, "false")
	case c == 'n':
		return p.literal(i, "null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.skipNumber(i)
	}
	bail("unexpected character")
	return 0
}

func (p *jparser) literal(i int, lit string) int {
	if len(p.data)-i < len(lit) || string(p.data[i:i+len(lit)]) != lit {
		bail("bad literal")
	}
	return i + len(lit)
}

func (p *jparser) skipNumber(i int) int {
	d := p.data
	digits := func() {
		start := i
		for i < len(d) && d[i] >= '0' && d[i] <= '9' {
			i++
		}
		if i == start {
			bail("bad number")
		}
	}
	if d[i] == '-' {
		i++
	}
	if i < len(d) && d[i] == '0' {
		i++
	} else {
		digits()
	}
	if i < len(d) && d[i] == '.' {
		i++
		digits()
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		digits()
	}
	return i
}

// skipString validates the string at data[i] == '"' and returns the offset
// after its closing quote.
func (p *jparser) skipString(i int) int {
	d := p.data
	for i++; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			return i + 1
		case c < 0x20:
			bail("control character in a string")
		case c == '\\':
			if i+1 >= len(d) {
				bail("bad escape")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) {
					bail("bad escape")
				}
				for _, h := range d[i+2 : i+6] {
					if !(h >= '0' && h <= '9' || h >= 'a' && h <= 'f' || h >= 'A' && h <= 'F') {
						bail("bad escape")
					}
				}
				i += 6
			default:
				bail("bad escape")
			}
		default:
			i++
		}
	}
	bail("unterminated string")
	return 0
}

// unquote returns the value of the string data[i:end].
func (p *jparser) unquote(i, end int) string {
	raw := p.data[i:end]
	for _, c := range raw[1 : len(raw)-1] {
		if c == '\\' {
			var s string
			if err := json.Unmarshal(raw, &s); err != nil {
				bail("bad string")
			}
			return s
		}
	}
	return string(raw[1 : len(raw)-1])
}

// jfields is the fieldSource of a fast-path JSON object. Like encoding/json
// decoding into a map, the last of duplicate keys wins.
type jfields struct{ o *jobject }

func (f jfields) pos() Pos {
	return Pos{File: f.o.p.path, Line: f.o.p.lines.line(f.o.off)}
}

func (f jfields) value() property.Value {
	return property.JSONValue(f.o.p.data[f.o.off:f.o.end])
}

func (f jfields) lookup(key string) (int, int, bool) {
	for i := len(f.o.keys) - 1; i >= 0; i-- {
		if f.o.keys[i] == key {
			return f.o.vals[i][0], f.o.vals[i][1], true
		}
	}
	return 0, 0, false
}

func (f jfields) str(key string) (string, error) {
	i, end, ok := f.lookup(key)
	if !ok {
		return "", nil
	}
	switch f.o.p.data[i] {
	case '"':
		return f.o.p.unquote(i, end), nil
	case 'n':
		return "", nil
	}
	return "", errFastShape
}

// items returns the offsets of the items of the array at data[i:end].
func (p *jparser) items(i, end int) []int {
	d := p.data
	var out []int
	i = skipSpace(d, i+1)
	for i < end && d[i] != ']' {
		out = append(out, i)
		i = skipSpace(d, p.skipValue(i))
		if d[i] == ',' {
			i = skipSpace(d, i+1)
		}
	}
	return out
}

func (f jfields) strList(key string) ([]string, error) {
	i, end, ok := f.lookup(key)
	if !ok || f.o.p.data[i] == 'n' {
		return nil, nil
	}
	if f.o.p.data[i] != '[' {
		return nil, errFastShape
	}
	items := f.o.p.items(i, end)
	out := make([]string, 0, len(items))
	for _, it := range items {
		switch f.o.p.data[it] {
		case '"':
			out = append(out, f.o.p.unquote(it, f.o.p.skipString(it)))
		case 'n':
			out = append(out, "")
		default:
			return nil, errFastShape
		}
	}
	return out, nil
}

func (f jfields) list(key string) ([]fieldSource, error) {
	i, end, ok := f.lookup(key)
	if !ok || f.o.p.data[i] == 'n' {
		return nil, nil
	}
	p := f.o.p
	if p.data[i] == '{' && key == "reference" {
		return []fieldSource{jfields{p.object(i)}}, nil
	}
	if p.data[i] != '[' {
		return nil, errFastShape
	}
	items := p.items(i, end)
	out := make([]fieldSource, 0, len(items))
	for _, it := range items {
		if p.data[it] != '{' {
			return nil, errFastShape
		}
		out = append(out, jfields{p.object(it)})
	}
	return out, nil
}

func (f jfields) raw(key string) (property.Value, Pos, bool) {
	i, end, ok := f.lookup(key)
	if !ok {
		return property.Value{}, Pos{}, false
	}
	return property.JSONValue(f.o.p.data[i:end]), Pos{File: f.o.p.path, Line: f.o.p.lines.line(i)}, true
}
