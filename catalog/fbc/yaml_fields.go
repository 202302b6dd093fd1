package fbc

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/catalog/property"
)

// yfields is the fieldSource of a fast-path mapping. It parses a value the
// first time it is asked for. Its errors only need to be errors: any of them
// sends the file to the reference decoder, which words them.
type yfields struct {
	p *yparser
	n *ynode
}

var errFastShape = errors.New("unexpected shape")

func (f yfields) pos() Pos { return Pos{File: f.p.path, Line: int(f.n.line)} }

func (f yfields) lookup(key string) *ynode {
	if f.n.kind != yMap {
		return nil
	}
	for i := range f.n.keys {
		if f.n.keys[i].s == key {
			return &f.n.vals[i]
		}
	}
	return nil
}

func (f yfields) get(key string) *ynode {
	v := f.lookup(key)
	if v != nil && v.kind == yLazy {
		*v = f.p.parseSpan(v.span.wide())
	}
	return v
}

func (f yfields) str(key string) (string, error) {
	v := f.get(key)
	switch {
	case v == nil || v.kind == yNull:
		return "", nil
	case v.kind == yScalar:
		return v.str, nil
	}
	return "", errFastShape
}

func (f yfields) strList(key string) ([]string, error) {
	v := f.get(key)
	if v == nil || v.kind == yNull {
		return nil, nil
	}
	if v.kind != ySeq {
		return nil, errFastShape
	}
	out := make([]string, 0, len(v.vals))
	for i := range v.vals {
		e := &v.vals[i]
		if e.kind != yScalar && e.kind != yNull {
			return nil, errFastShape
		}
		out = append(out, e.str)
	}
	return out, nil
}

func (f yfields) list(key string) ([]fieldSource, error) {
	v := f.get(key)
	if v == nil || v.kind == yNull {
		return nil, nil
	}
	if v.kind == yMap && key == "reference" {
		return []fieldSource{yfields{p: f.p, n: v}}, nil
	}
	if v.kind != ySeq {
		return nil, errFastShape
	}
	out := make([]fieldSource, 0, len(v.vals))
	for i := range v.vals {
		if v.vals[i].kind != yMap {
			return nil, errFastShape
		}
		out = append(out, yfields{p: f.p, n: &v.vals[i]})
	}
	return out, nil
}

func (f yfields) raw(key string) (property.Value, Pos, bool) {
	v := f.lookup(key)
	if v == nil {
		return property.Value{}, Pos{}, false
	}
	return f.p.rawValue(v), Pos{File: f.p.path, Line: int(v.line)}, true
}

func (f yfields) value() property.Value { return f.p.rawValue(f.n) }

// rawValue returns a node as the bytes it was written as; an empty value is
// JSON null, as the reference decoder has it.
func (p *yparser) rawValue(n *ynode) property.Value {
	if (n.span.set && n.span.off == n.span.end) || (!n.span.set && n.kind == yNull) {
		return property.JSONValue([]byte("null"))
	}
	if !n.span.set {
		if b, ok := appendJSON(nil, n); ok {
			return property.JSONValue(b)
		}
		p.bail("value without a span")
	}
	return property.YAMLValue(p.data[n.span.off:n.span.end])
}

// smallTypes are the property types property.Parse decodes eagerly: the
// fast path hands them over as JSON.
var smallTypes = map[string]bool{
	property.TypePackage:             true,
	property.TypeGVK:                 true,
	property.TypePackageRequired:     true,
	property.TypeGVKRequired:         true,
	property.TypeConstraint:          true,
	property.TypeMaxOpenShiftVersion: true,
	property.TypeKubeVersion:         true,
}

// fastProperties turns the YAML values of small properties into JSON; a
// value the converter declines stays YAML and converts on demand, unless it
// writes a key twice (an error: the file goes to the reference decoder).
func fastProperties(c *Config) error {
	dup := false
	conv := func(props []property.Property) {
		for i := range props {
			pr := &props[i]
			if pr.Value.Format != property.YAML || !smallTypes[pr.Type] {
				continue
			}
			raw, err := pr.Value.Bytes()
			if err != nil {
				continue
			}
			if b, ok := yamlToJSON(raw); ok {
				pr.Value = property.JSONValue(b)
			} else if hasDuplicateKeys(raw) {
				dup = true
			}
		}
	}
	for i := range c.Packages {
		conv(c.Packages[i].Properties)
	}
	for i := range c.Channels {
		conv(c.Channels[i].Properties)
	}
	for i := range c.Bundles {
		conv(c.Bundles[i].Properties)
	}
	if dup {
		return errFastShape
	}
	return nil
}

// hasDuplicateKeys says whether a value the converter declined writes a
// key twice: the file then goes to the reference decoder, which warns.
func hasDuplicateKeys(raw []byte) bool {
	var n yaml.Node
	return yaml.Unmarshal(raw, &n) == nil && len(property.DropDuplicateKeys(&n)) > 0
}

// yamlToJSON converts a small self-contained YAML value to compact JSON
// with the same meaning as yaml.v3 gives it, or reports false.
func yamlToJSON(raw []byte) (out []byte, ok bool) {
	defer fallBack(&out, &ok)
	if !fastEligible(raw) {
		return nil, false
	}
	p := &yparser{data: raw}
	p.getScratch()
	defer p.putScratch()
	p.setLine(0, 1)
	p.skipBlank()
	if p.eof() {
		return nil, false
	}
	t := p.text()
	if isDocMarker(t) || t[0] == '%' {
		return nil, false
	}
	n := p.parseBlockNode(-1)
	p.skipBlank()
	if !p.eof() {
		return nil, false
	}
	p.force(&n)
	// The JSON of a small value is about as long as its YAML: one
	// allocation instead of a slice grown from nothing.
	return appendJSON(make([]byte, 0, len(raw)+8), &n)
}

// force parses every lazy value under n.
func (p *yparser) force(n *ynode) {
	p.enter()
	defer p.leave()
	for i := range n.vals {
		v := &n.vals[i]
		if v.kind == yLazy {
			*v = p.parseSpan(v.span.wide())
		}
		p.force(v)
	}
}

// appendJSON appends n as JSON, resolving plain scalars with yaml.v3's core
// schema; it reports false for anything whose JSON form it is not sure of.
func appendJSON(b []byte, n *ynode) ([]byte, bool) {
	var ok bool
	switch n.kind {
	case yNull:
		return append(b, "null"...), true
	case yScalar:
		if !n.plain {
			return appendJSONString(b, n.str), true
		}
		return appendPlain(b, n.str)
	case ySeq:
		b = append(b, '[')
		for i := range n.vals {
			if i > 0 {
				b = append(b, ',')
			}
			if b, ok = appendJSON(b, &n.vals[i]); !ok {
				return nil, false
			}
		}
		return append(b, ']'), true
	case yMap:
		b = append(b, '{')
		for i, k := range n.keys {
			if k.plain && resolveHint[k.s[0]] != 0 {
				return nil, false // a key yaml.v3 may not read as a string
			}
			for _, k2 := range n.keys[:i] {
				if k2.s == k.s {
					return nil, false // yaml.v3 refuses duplicate keys
				}
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k.s)
			b = append(b, ':')
			if b, ok = appendJSON(b, &n.vals[i]); !ok {
				return nil, false
			}
		}
		return append(b, '}'), true
	}
	return nil, false
}

// resolveHint is yaml.v3's resolveTable: a plain scalar starting with any
// other byte is a string.
var resolveHint = func() (t [256]byte) {
	t['+'], t['-'] = 'S', 'S'
	for c := '0'; c <= '9'; c++ {
		t[c] = 'D'
	}
	for _, c := range "yYnNtTfFoO~" {
		t[c] = 'M'
	}
	t['.'] = '.'
	return t
}()

var yamlStyleFloat = regexp.MustCompile(`^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$`)

// appendPlain appends a plain scalar as yaml.v3 resolves it (see its
// resolve.go); timestamps, special floats and merge keys are declined.
func appendPlain(b []byte, s string) ([]byte, bool) {
	if s == "" {
		return append(b, "null"...), true
	}
	hint := resolveHint[s[0]]
	if hint == 0 {
		return appendJSONString(b, s), true
	}
	switch s {
	case "true", "True", "TRUE":
		return append(b, "true"...), true
	case "false", "False", "FALSE":
		return append(b, "false"...), true
	case "~", "null", "Null", "NULL":
		return append(b, "null"...), true
	case ".nan", ".NaN", ".NAN", ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF", "<<":
		return nil, false
	}
	switch hint {
	case 'M':
		return appendJSONString(b, s), true
	case '.':
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return appendFloat(b, f)
		}
		return appendJSONString(b, s), true
	}
	if looksLikeTimestamp(s) {
		return nil, false
	}
	plain := strings.ReplaceAll(s, "_", "")
	if i, err := strconv.ParseInt(plain, 0, 64); err == nil {
		return strconv.AppendInt(b, i, 10), true
	}
	if u, err := strconv.ParseUint(plain, 0, 64); err == nil {
		return strconv.AppendUint(b, u, 10), true
	}
	if yamlStyleFloat.MatchString(plain) {
		if f, err := strconv.ParseFloat(plain, 64); err == nil {
			return appendFloat(b, f)
		}
	}
	for _, pre := range []string{"0b", "-0b", "0o", "-0o"} {
		if strings.HasPrefix(plain, pre) {
			return nil, false
		}
	}
	return appendJSONString(b, s), true
}

func looksLikeTimestamp(s string) bool {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == 4 && i < len(s) && s[i] == '-'
}

func appendFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64), true
}

// appendJSONString appends s as a JSON string.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		b = append(b, s[start:i]...)
		switch c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '\n':
			b = append(b, '\\', 'n')
		case '\t':
			b = append(b, '\\', 't')
		case '\r':
			b = append(b, '\\', 'r')
		default:
			b = fmt.Appendf(b, `\u%04x`, c)
		}
		start = i + 1
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
