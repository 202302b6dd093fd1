package render

import (
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"

	"github.com/olmops/olmops/catalog/yamllimit"
	yaml "go.yaml.in/yaml/v3"
)

// prependResource puts file first in a kustomization's resources, keeping
// the rest of the file as written; a kustomization that lists it already
// stays as it is.
func prependResource(name string, data []byte, file string) ([]byte, error) {
	root, err := kustomizationRoot(name, data)
	if err != nil {
		return nil, err
	}
	item := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: file}
	if v := mappingValue(root, "resources"); v != nil {
		if v.Kind != yaml.SequenceNode {
			return nil, &posError{File: name, Line: v.Line, Msg: "resources is not a list"}
		}
		for _, c := range v.Content {
			if c.Value == file {
				return data, nil
			}
		}
		v.Content = append([]*yaml.Node{item}, v.Content...)
	} else {
		root.Content = append(root.Content,
			&yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: "resources"},
			&yaml.Node{Kind: yaml.SequenceNode, Tag: "!!seq", Content: []*yaml.Node{item}})
	}
	out, err := yaml.Marshal(root)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return out, nil
}

// kustomizationRoot parses a kustomization file down to its top-level map;
// an empty file is an empty map.
func kustomizationRoot(name string, data []byte) (*yaml.Node, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		line, msg := yamlErrorLine(err)
		return nil, &posError{File: name, Line: line, Msg: msg, Err: err}
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, &posError{File: name, Line: root.Line, Msg: "a kustomization must be a map"}
	}
	return root, nil
}

func mappingValue(m *yaml.Node, key string) *yaml.Node {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// kustomization fields whose entries name files or folders to load.
var (
	pathListFields = []string{"resources", "bases", "components", "crds", "configurations", "generators", "transformers", "validators", "patchesStrategicMerge"}
	// pathObjectFields hold lists of objects with a path.
	pathObjectFields = []string{"patches", "patchesJson6902", "replacements"}
	// generatorFields hold lists of generators reading files and env files.
	generatorFields = []string{"configMapGenerator", "secretGenerator"}
)

// checkLocal refuses a kustomization that names anything outside the
// overlay folder, which kustomize would read from elsewhere or fetch over
// the network. dir is the kustomization's folder within the overlay.
func checkLocal(name, dir string, data []byte) error {
	root, err := kustomizationRoot(name, data)
	if err != nil {
		return err
	}
	var refs []*yaml.Node
	for _, f := range pathListFields {
		refs = append(refs, scalars(mappingValue(root, f))...)
	}
	for _, f := range pathObjectFields {
		for _, e := range items(mappingValue(root, f)) {
			refs = append(refs, scalars(mappingValue(e, "path"))...)
		}
	}
	for _, f := range generatorFields {
		for _, g := range items(mappingValue(root, f)) {
			for _, k := range []string{"files", "envs", "env"} {
				refs = append(refs, scalars(mappingValue(g, k))...)
			}
		}
	}
	if o := mappingValue(root, "openapi"); o != nil && o.Kind == yaml.MappingNode {
		refs = append(refs, scalars(mappingValue(o, "path"))...)
	}
	for _, r := range refs {
		if problem := outsideOverlay(dir, r.Value); problem != "" {
			return &posError{File: name, Line: r.Line, Msg: fmt.Sprintf("%q %s: an overlay may use only the files of its folder", r.Value, problem)}
		}
	}
	return nil
}

// outsideOverlay says how a reference leaves the overlay, or "".
func outsideOverlay(dir, ref string) string {
	ref = strings.TrimSpace(ref)
	if strings.Contains(ref, "\n") {
		return "" // an inline patch, not a path
	}
	if looksRemote(ref) {
		return "is remote"
	}
	if _, p, ok := strings.Cut(ref, "="); ok {
		ref = p // a generator's key=path
	}
	if path.IsAbs(ref) {
		return "is an absolute path"
	}
	if j := path.Join(dir, ref); j == ".." || strings.HasPrefix(j, "../") {
		return "leaves the overlay folder"
	}
	return ""
}

// scalars returns a scalar node, or the scalar items of a list.
func scalars(n *yaml.Node) []*yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.ScalarNode {
		return []*yaml.Node{n}
	}
	var out []*yaml.Node
	for _, c := range items(n) {
		if c.Kind == yaml.ScalarNode {
			out = append(out, c)
		}
	}
	return out
}

func items(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

var scpUserRE = regexp.MustCompile(`^[a-zA-Z][a-zA-Z0-9-]*@`)

// looksRemote matches every form kustomize reads as a URL or a git
// repository (and a few more): a scheme, go-getter's git:: prefix, an
// scp-style user@host, or a bare github.com path.
func looksRemote(s string) bool {
	if _, p, ok := strings.Cut(s, "="); ok && !strings.Contains(s, "://") {
		s = p // a generator's key=path
	}
	lower := strings.ToLower(s)
	return strings.Contains(lower, "://") || strings.HasPrefix(lower, "git::") ||
		strings.HasPrefix(lower, "github.com") || scpUserRE.MatchString(s)
}

// checkInlineYAML bounds the YAML a kustomization holds as text (inline
// patches), which kustomize parses again: Check saw only strings there.
func checkInlineYAML(name string, data []byte) error {
	root, err := kustomizationRoot(name, data)
	if err != nil {
		return nil // checkLocal has reported it
	}
	var walk func(n *yaml.Node) error
	walk = func(n *yaml.Node) error {
		if n.Kind == yaml.ScalarNode {
			err := yamllimit.Check(name, []byte(n.Value), yamllimit.Limits{})
			var le *yamllimit.Error
			if errors.As(err, &le) {
				le.Line = n.Line // the text's own lines do not map back after folding
			}
			return err
		}
		for _, c := range n.Content {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	return walk(root)
}
