package catalogimport

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"reflect"

	yaml "go.yaml.in/yaml/v3"

	"github.com/olmops/olmops/api/v1alpha1"
)

// UnlistedError refuses an import into a folder that olmops.yaml would
// leave unused: the file lists catalogs, not this one, and olmops could not
// add it safely. Lines says what to add under spec.catalogs.
type UnlistedError struct {
	Catalog, Dir, Reason string
	Lines                string
}

func (e *UnlistedError) Error() string {
	return fmt.Sprintf("%s lists catalogs but not %s, so the imported catalog would stay unused, and olmops cannot add it (%s); add under spec.catalogs:\n%s",
		v1alpha1.RepositoryFile, e.Dir, e.Reason, e.Lines)
}

// register returns olmops.yaml (data, nil when absent) with catalog name
// at dir added to spec.catalogs, or nil when nothing needs adding: the file
// is absent, lists no catalogs (every folder under catalogs/ is one), or
// already lists dir. The rest of the file keeps its comments and order;
// blank lines and quoting are yaml.v3's. A file that does not read back as
// the same configuration plus the new catalog is refused.
func register(data []byte, name, dir string) ([]byte, error) {
	if data == nil {
		return nil, nil
	}
	dir = path.Clean(dir)
	cfg, err := v1alpha1.Load(v1alpha1.RepositoryFile, data)
	if err != nil {
		return nil, err
	}
	cfg.SetDefaults("")
	if len(cfg.Spec.Catalogs) == 0 {
		return nil, nil
	}
	for _, c := range cfg.Spec.Catalogs {
		if path.Clean(c.Path) == path.Clean(dir) {
			return nil, nil
		}
	}
	entry := v1alpha1.Catalog{Name: name, Path: dir}
	refuse := func(reason string) error {
		return &UnlistedError{Catalog: name, Dir: dir, Reason: reason, Lines: fmt.Sprintf("    - name: %s\n      path: %s\n", name, dir)}
	}
	for _, c := range cfg.Spec.Catalogs {
		if c.Name == name {
			return nil, refuse(fmt.Sprintf("a catalog named %s already reads %s: import into a folder of another name, or rename one", name, c.Path))
		}
	}
	out, err := appendCatalog(data, entry)
	if err != nil {
		return nil, refuse(err.Error())
	}
	got, err := v1alpha1.Load(v1alpha1.RepositoryFile, out)
	if err != nil {
		return nil, refuse(err.Error())
	}
	got.SetDefaults("")
	cfg.Spec.Catalogs = append(cfg.Spec.Catalogs, entry)
	if !reflect.DeepEqual(got, cfg) {
		return nil, refuse("the rewritten file would read differently")
	}
	return out, nil
}

// appendCatalog adds c to the spec.catalogs sequence of the document.
func appendCatalog(data []byte, c v1alpha1.Catalog) ([]byte, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) != 1 {
		return nil, errors.New("not a single YAML document")
	}
	spec := valueOf(doc.Content[0], "spec")
	catalogs := valueOf(spec, "catalogs")
	if catalogs == nil || catalogs.Kind != yaml.SequenceNode {
		return nil, errors.New("spec.catalogs is not a plain list")
	}
	catalogs.Content = append(catalogs.Content, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{
		{Kind: yaml.ScalarNode, Value: "name"}, {Kind: yaml.ScalarNode, Value: c.Name},
		{Kind: yaml.ScalarNode, Value: "path"}, {Kind: yaml.ScalarNode, Value: c.Path},
	}})
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(indentOf(doc.Content[0], spec))
	if err := enc.Encode(&doc); err != nil {
		return nil, err
	}
	if err := enc.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// valueOf is the value of key in mapping m; nil when m is not a mapping
// without aliases or lacks key.
func valueOf(m *yaml.Node, key string) *yaml.Node {
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// indentOf is the indentation the file uses: how far spec's keys sit
// right of spec; 2 when that cannot be told.
func indentOf(root, spec *yaml.Node) int {
	if spec == nil || spec.Kind != yaml.MappingNode || len(spec.Content) == 0 || len(root.Content) == 0 {
		return 2
	}
	if n := spec.Content[0].Column - root.Content[0].Column; n >= 2 && n <= 8 {
		return n
	}
	return 2
}
