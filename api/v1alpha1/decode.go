package v1alpha1

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/olmops/olmops/catalog/yamllimit"
	"io"
	"reflect"
	"sort"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/catalog/property"
)

// Pos is where something is in a file: a path and a 1-based line.
type Pos = property.Pos

// Error is one problem in a file, at the line it is about.
type Error struct {
	// Pos is the file and line the problem is about.
	Pos Pos
	// Msg says what is wrong.
	Msg string
}

func (e *Error) Error() string { return e.Pos.String() + ": " + e.Msg }

const maxDepth = 64

// decoder fills Go values from a yaml.Node tree by their json tags,
// strictly, and collects every problem with its line.
type decoder struct {
	path string
	root string // names the top level in messages: "Repository"
	errs []error
	// lines holds the line of each field seen by its field path
	// ("spec.catalogs[0].name"), so validation can point at it.
	lines map[string]int
	// bad holds the fields that had a type error, so validation does not
	// report them again.
	bad map[string]bool
}

// MaxConfigBytes is the largest olmops.yaml or cluster.yaml read: a
// repository's configuration is a few kilobytes.
const MaxConfigBytes = 1 << 20

// decodeFile decodes the single YAML document of data into v.
func decodeFile(path, root string, data []byte, v any) *decoder {
	d := &decoder{path: path, root: root, lines: map[string]int{}, bad: map[string]bool{}}
	if err := yamllimit.Check(path, data, yamllimit.Limits{MaxBytes: MaxConfigBytes}); err != nil {
		var le *yamllimit.Error
		errors.As(err, &le)
		d.errs = append(d.errs, &Error{Pos: Pos{File: le.Path, Line: le.Line}, Msg: le.Msg})
		return d
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if err != io.EOF {
			d.errs = append(d.errs, &Error{Pos: Pos{File: path, Line: yamlErrLine(err)}, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")})
		}
		return d
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err != io.EOF {
		line := extra.Line
		if len(extra.Content) > 0 {
			line = extra.Content[0].Line
		}
		if err != nil {
			line = yamlErrLine(err)
		}
		d.errs = append(d.errs, &Error{Pos: Pos{File: path, Line: line}, Msg: "only one YAML document is allowed"})
	}
	if len(doc.Content) > 0 {
		d.lines[""] = doc.Content[0].Line
		d.decode(doc.Content[0], reflect.ValueOf(v).Elem(), "", 0)
	}
	return d
}

// yamlErrLine pulls the line out of a yaml.v3 error ("yaml: line 12: ...").
func yamlErrLine(err error) int {
	var line int
	if _, e := fmt.Sscanf(err.Error(), "yaml: line %d:", &line); e == nil {
		return line
	}
	return 0
}

// decoded says whether the file held a document to decode.
func (d *decoder) decoded() bool {
	_, ok := d.lines[""]
	return ok
}

func (d *decoder) errorf(n *yaml.Node, format string, args ...any) {
	d.errs = append(d.errs, &Error{Pos: Pos{File: d.path, Line: n.Line}, Msg: fmt.Sprintf(format, args...)})
}

func (d *decoder) where(field string) string {
	if field == "" {
		return d.root
	}
	return field
}

func (d *decoder) decode(n *yaml.Node, v reflect.Value, field string, depth int) {
	for n.Kind == yaml.AliasNode && depth < maxDepth {
		n, depth = n.Alias, depth+1
	}
	if depth >= maxDepth {
		d.errorf(n, "%s is nested too deeply", d.where(field))
		return
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			v.Set(reflect.New(v.Type().Elem()))
		}
		d.decode(n, v.Elem(), field, depth+1)
	case reflect.Struct:
		d.decodeStruct(n, v, field, depth)
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			d.typeError(n, field, "a list")
			return
		}
		s := reflect.MakeSlice(v.Type(), len(n.Content), len(n.Content))
		for i, e := range n.Content {
			item := fmt.Sprintf("%s[%d]", field, i)
			d.lines[item] = e.Line
			d.decode(e, s.Index(i), item, depth+1)
		}
		v.Set(s)
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			d.typeError(n, field, "a mapping")
			return
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
				d.errorf(k, "%s has a key that is not a string", d.where(field))
				continue
			}
			e := reflect.New(v.Type().Elem()).Elem()
			d.lines[field+"."+k.Value] = k.Line
			d.decode(n.Content[i+1], e, field+"."+k.Value, depth+1)
			m.SetMapIndex(reflect.ValueOf(k.Value).Convert(v.Type().Key()), e)
		}
		v.Set(m)
	case reflect.String:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
			d.typeError(n, field, "a string")
			return
		}
		v.SetString(n.Value)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		var i int64
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&i) != nil {
			d.typeError(n, field, "an integer")
			return
		}
		if v.OverflowInt(i) {
			d.errorf(n, "%s: %s is out of range", d.where(field), n.Value)
			return
		}
		v.SetInt(i)
	case reflect.Bool:
		var b bool
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&b) != nil {
			d.typeError(n, field, "true or false")
			return
		}
		v.SetBool(b)
	default:
		panic(fmt.Sprintf("v1alpha1: cannot decode into %s", v.Type())) // a bug in this package's types
	}
}

func (d *decoder) decodeStruct(n *yaml.Node, v reflect.Value, field string, depth int) {
	if n.Kind != yaml.MappingNode {
		d.typeError(n, field, "a mapping")
		return
	}
	fields := jsonFields(v.Type())
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			d.errorf(k, "%s has a key that is not a string", d.where(field))
			continue
		}
		index, ok := fields[k.Value]
		if !ok {
			d.errorf(k, "unknown field %q in %s%s", k.Value, d.where(field), suggest(k.Value, fields))
			continue
		}
		if seen[k.Value] {
			d.errorf(k, "duplicate field %q in %s", k.Value, d.where(field))
			continue
		}
		seen[k.Value] = true
		sub := k.Value
		if field != "" {
			sub = field + "." + k.Value
		}
		d.lines[sub] = k.Line
		d.decode(n.Content[i+1], v.FieldByIndex(index), sub, depth+1)
	}
}

func (d *decoder) typeError(n *yaml.Node, field, want string) {
	d.bad[field] = true
	got := "a " + strings.TrimPrefix(n.ShortTag(), "!!")
	switch {
	case n.Kind == yaml.MappingNode:
		got = "a mapping"
	case n.Kind == yaml.SequenceNode:
		got = "a list"
	case n.ShortTag() == "!!int" || n.ShortTag() == "!!float":
		got = "a number"
	case n.ShortTag() == "!!bool":
		got = "a boolean"
	case n.ShortTag() == "!!str":
		got = "a string"
	}
	hint := ""
	if want == "a string" && got == "a number" {
		hint = " (quote it)"
	}
	d.errorf(n, "%s must be %s, not %s%s", d.where(field), want, got, hint)
}

// jsonFields maps the json names of a struct's fields (flattening inline
// embedded structs) to their field indexes.
func jsonFields(t reflect.Type) map[string][]int {
	out := map[string][]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" && strings.Contains(opts, "inline") && f.Type.Kind() == reflect.Struct {
			for n, idx := range jsonFields(f.Type) {
				out[n] = append([]int{i}, idx...)
			}
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = []int{i}
	}
	return out
}

// suggest names a known field that differs from an unknown one only in
// case, the usual typo.
func suggest(name string, fields map[string][]int) string {
	var names []string
	for n := range fields {
		if strings.EqualFold(n, name) {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return ""
	}
	sort.Strings(names)
	return fmt.Sprintf(" (did you mean %q?)", names[0])
}

// isBad says whether a field or one of its ancestors had a type error.
func (d *decoder) isBad(field string) bool {
	for f := field; f != ""; {
		if d.bad[f] {
			return true
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return d.bad[""]
}

// pos returns the line of a field path, or of its closest ancestor present
// in the file.
func (d *decoder) pos(field string) Pos {
	for f := field; ; {
		if line, ok := d.lines[f]; ok {
			return Pos{File: d.path, Line: line}
		}
		i := strings.LastIndexAny(f, ".[")
		if i < 0 {
			if f == "" {
				return Pos{File: d.path}
			}
			f = ""
			continue
		}
		f = f[:i]
	}
}

// result turns the decode problems and the validation problems into one
// error, each at its line, in line order.
func (d *decoder) result(validation error) error {
	errs := d.errs
	for _, err := range unjoin(validation) {
		var fe *FieldError
		if errors.As(err, &fe) {
			if d.isBad(fe.Field) {
				continue
			}
			errs = append(errs, &Error{Pos: d.pos(fe.Field), Msg: fe.Error()})
			continue
		}
		errs = append(errs, &Error{Pos: Pos{File: d.path}, Msg: err.Error()})
	}
	sort.SliceStable(errs, func(a, b int) bool {
		return errs[a].(*Error).Pos.Line < errs[b].(*Error).Pos.Line
	})
	return errors.Join(errs...)
}

func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
