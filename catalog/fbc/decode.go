package fbc

import (
	"bytes"
	"errors"

	"github.com/olmops/olmops/catalog/property"
)

// Decode reads every object of one catalog file. The file is a stream of
// YAML documents or of concatenated JSON objects (sniffed from its first
// non-space byte, as opm does). path is used for positions only.
//
// Decode reports every problem it can find in the file; on error the
// returned Config holds the objects that did decode.
func Decode(path string, data []byte) (*Config, error) {
	if isJSON(data) {
		if c, ok := decodeJSONFast(path, data); ok {
			return c, nil
		}
		return decodeJSONReference(path, data)
	}
	if c, ok := decodeYAMLFast(path, data); ok {
		return c, nil
	}
	return decodeYAMLReference(path, data)
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
		errs = noteErrs(errs, err)
		if len(entries) > 0 {
			ch.Entries = make([]ChannelEntry, 0, len(entries))
		}
		for _, e := range entries {
			entry, err := channelEntry(e)
			errs = noteErrs(errs, err)
			ch.Entries = append(ch.Entries, entry)
		}
		c.Channels = append(c.Channels, ch)
	case SchemaBundle:
		b := Bundle{Pos: o.pos, Package: str("package"), Name: str("name"), Image: str("image"), Properties: props()}
		imgs, err := f.list("relatedImages")
		errs = noteErrs(errs, err)
		if len(imgs) > 0 {
			b.RelatedImages = make([]RelatedImage, 0, len(imgs))
		}
		for _, ri := range imgs {
			name, err1 := ri.str("name")
			image, err2 := ri.str("image")
			errs = noteErrs(errs, err1, err2)
			b.RelatedImages = append(b.RelatedImages, RelatedImage{Name: name, Image: image})
		}
		c.Bundles = append(c.Bundles, b)
	case SchemaDeprecations:
		d := Deprecation{Pos: o.pos, Package: str("package")}
		entries, err := f.list("entries")
		errs = noteErrs(errs, err)
		for _, e := range entries {
			entry, err := deprecationEntry(e)
			errs = noteErrs(errs, err)
			d.Entries = append(d.Entries, entry)
		}
		c.Deprecations = append(c.Deprecations, d)
	default:
		c.Others = append(c.Others, Blob{Pos: o.pos, Schema: o.schema, Package: str("package"), Name: str("name"), Value: f.value()})
	}
	return errors.Join(errs...)
}

// noteErrs appends the errors that are not nil: most fields decode
// without one, and a slice of nils was a megabyte a load.
func noteErrs(errs []error, more ...error) []error {
	for _, err := range more {
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
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
