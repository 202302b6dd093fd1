package catalogimport

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/property"
)

// renderFile writes the objects of one package: olm.package, channels by
// name, bundles by version then name, deprecations, then other schemas.
func renderFile(c *catalog.Catalog, cfg *fbc.Config) ([]byte, error) {
	var nodes []*yaml.Node
	var errs []error
	add := func(n *yaml.Node, err error) {
		nodes = append(nodes, n)
		errs = append(errs, err)
	}
	for _, p := range sortedBy(cfg.Packages, func(p fbc.Package) string { return p.Name }) {
		add(packageNode(p))
	}
	for _, ch := range sortedBy(cfg.Channels, func(ch fbc.Channel) string { return ch.Name }) {
		add(channelNode(c, ch))
	}
	bundles := slices.Clone(cfg.Bundles)
	slices.SortStableFunc(bundles, func(a, b fbc.Bundle) int {
		return cmp.Or(compareVersions(c.Bundle(a.Package, a.Name), c.Bundle(b.Package, b.Name)), strings.Compare(a.Name, b.Name))
	})
	for _, b := range bundles {
		add(bundleNode(b))
	}
	for _, d := range cfg.Deprecations {
		add(deprecationNode(d), nil)
	}
	for _, o := range sortedBy(cfg.Others, func(o fbc.Blob) string { return o.Schema + "\x00" + o.Name }) {
		add(rawNode(o.Value))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return encodeYAML(nodes)
}

// encodeYAML writes nodes as a stream of YAML documents.
func encodeYAML(nodes []*yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	for _, n := range nodes {
		if err := enc.Encode(n); err != nil {
			return nil, err
		}
	}
	err := enc.Close()
	return buf.Bytes(), err
}

// sortedBy returns a copy of xs sorted by key, ties in their given order.
func sortedBy[T any](xs []T, key func(T) string) []T {
	out := slices.Clone(xs)
	slices.SortStableFunc(out, func(a, b T) int { return strings.Compare(key(a), key(b)) })
	return out
}

// compareVersions orders bundles by version, those without one last.
func compareVersions(a, b *catalog.Bundle) int {
	switch {
	case a == nil || a.Version == nil:
		if b == nil || b.Version == nil {
			return 0
		}
		return 1
	case b == nil || b.Version == nil:
		return -1
	}
	return a.Version.Compare(b.Version)
}

// The objects as YAML nodes, fields in opm's order.

func scalar(s string) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s, Style: stringStyle(s)}
}

// stringStyle leaves the style to the encoder, except for multi-line
// strings starting with blank space: yaml.v3 writes those as block scalars
// it cannot read back.
func stringStyle(s string) yaml.Style {
	if strings.Contains(s, "\n") && strings.TrimLeft(s, " \t\n") != s {
		return yaml.DoubleQuotedStyle
	}
	return 0
}

func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		var v *yaml.Node
		switch x := kv[i+1].(type) {
		case string:
			if x == "" {
				continue
			}
			v = scalar(x)
		case *yaml.Node:
			if x == nil {
				continue
			}
			v = x
		}
		m.Content = append(m.Content, scalar(kv[i].(string)), v)
	}
	return m
}

func sequence(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// optional omits an empty list, as opm does.
func optional(n *yaml.Node) *yaml.Node {
	if n == nil || len(n.Content) == 0 {
		return nil
	}
	return n
}

// rawNode turns a value as written into a node in block style, so that
// JSON and YAML sources give the same file.
func rawNode(v property.Value) (*yaml.Node, error) {
	b, err := v.Bytes()
	if err != nil {
		return nil, err
	}
	if v.Format == property.JSON {
		// Much faster than the YAML parser on the megabytes of CSV
		// metadata a real catalog holds.
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		n, err := jsonNode(dec)
		if err != nil {
			return nil, fmt.Errorf("value %.40q: %w", b, err)
		}
		return n, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil || len(doc.Content) != 1 {
		return nil, fmt.Errorf("value %.40q does not convert to YAML: %v", b, err)
	}
	var block func(*yaml.Node)
	block = func(n *yaml.Node) {
		n.Style = 0
		if n.Kind == yaml.ScalarNode && n.Tag == "!!str" {
			n.Style = stringStyle(n.Value)
		}
		for _, c := range n.Content {
			block(c)
		}
	}
	block(doc.Content[0])
	return doc.Content[0], nil
}

// jsonNode reads one JSON value into a node, keys in their order.
func jsonNode(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		n := &yaml.Node{Kind: yaml.MappingNode}
		if t == '[' {
			n.Kind = yaml.SequenceNode
		}
		keys := map[string]int{}
		for dec.More() {
			key := ""
			if n.Kind == yaml.MappingNode {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key = k.(string)
			}
			c, err := jsonNode(dec)
			if err != nil {
				return nil, err
			}
			if n.Kind == yaml.SequenceNode {
				n.Content = append(n.Content, c)
			} else if i, dup := keys[key]; dup {
				n.Content[i] = c // the last duplicate wins, as in encoding/json
			} else {
				keys[key] = len(n.Content) + 1
				n.Content = append(n.Content, scalar(key), c)
			}
		}
		_, err := dec.Token() // the closing delimiter
		return n, err
	case string:
		return scalar(t), nil
	case json.Number:
		// Untagged: YAML reads the number as it reads any plain one,
		// float when too big for an int, as encoding/json does.
		return &yaml.Node{Kind: yaml.ScalarNode, Value: string(t)}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(t)}, nil
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
}

func propertiesNode(ps []property.Property) (*yaml.Node, error) {
	seq := sequence()
	for _, p := range ps {
		v, err := rawNode(p.Value)
		if err != nil {
			return nil, fmt.Errorf("%s: property %s: %w", p.Pos, p.Type, err)
		}
		seq.Content = append(seq.Content, mapping("type", p.Type, "value", v))
	}
	return seq, nil
}

func packageNode(p fbc.Package) (*yaml.Node, error) {
	var icon *yaml.Node
	if p.Icon != nil {
		var err error
		if icon, err = rawNode(*p.Icon); err != nil {
			return nil, fmt.Errorf("%s: icon: %w", p.Pos, err)
		}
	}
	props, err := propertiesNode(p.Properties)
	return mapping("schema", fbc.SchemaPackage, "name", p.Name, "defaultChannel", p.DefaultChannel, "icon", icon, "description", p.Description, "properties", optional(props)), err
}

// channelNode lists entries by bundle version, then name, so that a new
// bundle adds its entry in one place.
func channelNode(c *catalog.Catalog, ch fbc.Channel) (*yaml.Node, error) {
	entries := slices.Clone(ch.Entries)
	slices.SortStableFunc(entries, func(a, b fbc.ChannelEntry) int {
		return cmp.Or(compareVersions(c.Bundle(ch.Package, a.Name), c.Bundle(ch.Package, b.Name)), strings.Compare(a.Name, b.Name))
	})
	seq := sequence()
	for _, e := range entries {
		skips := sequence()
		for _, s := range e.Skips {
			skips.Content = append(skips.Content, scalar(s))
		}
		seq.Content = append(seq.Content, mapping("name", e.Name, "replaces", e.Replaces, "skips", optional(skips), "skipRange", e.SkipRange))
	}
	props, err := propertiesNode(ch.Properties)
	return mapping("schema", fbc.SchemaChannel, "package", ch.Package, "name", ch.Name, "entries", seq, "properties", optional(props)), err
}

func bundleNode(b fbc.Bundle) (*yaml.Node, error) {
	props, err := propertiesNode(b.Properties)
	related := sequence()
	for _, r := range b.RelatedImages {
		related.Content = append(related.Content, mapping("name", r.Name, "image", r.Image))
	}
	return mapping("schema", fbc.SchemaBundle, "package", b.Package, "name", b.Name, "image", b.Image, "properties", optional(props), "relatedImages", optional(related)), err
}

func deprecationNode(d fbc.Deprecation) *yaml.Node {
	order := map[string]int{fbc.SchemaPackage: 0, fbc.SchemaChannel: 1, fbc.SchemaBundle: 2}
	entries := slices.Clone(d.Entries)
	slices.SortStableFunc(entries, func(a, b fbc.DeprecationEntry) int {
		return cmp.Or(cmp.Compare(order[a.Schema], order[b.Schema]), strings.Compare(a.Name, b.Name))
	})
	seq := sequence()
	for _, e := range entries {
		seq.Content = append(seq.Content, mapping("reference", mapping("schema", e.Schema, "name", e.Name), "message", e.Message))
	}
	return mapping("schema", fbc.SchemaDeprecations, "package", d.Package, "entries", seq)
}
