package property

import yaml "go.yaml.in/yaml/v3"

// DuplicateKey is a mapping key written again later in the same mapping.
type DuplicateKey struct {
	Key string
	// First is the line of the first occurrence, Line of this one.
	First, Line int
}

// maxDupDepth bounds the walk; deeper nodes are refused by the size
// limits long before (catalog/yamllimit).
const maxDupDepth = 1000

// DropDuplicateKeys keeps, in every mapping under n, only the last value of
// a key written more than once: what opm reads, since it converts YAML to
// JSON and decodes that into maps and structs, where the last key wins
// (yaml.v3 refuses such a mapping instead). It returns each later
// occurrence, in document order. Aliases are not followed: the node they
// name is walked where it is written.
func DropDuplicateKeys(n *yaml.Node) []DuplicateKey {
	var out []DuplicateKey
	dropDuplicates(n, 0, &out)
	return out
}

func dropDuplicates(n *yaml.Node, depth int, out *[]DuplicateKey) {
	if n == nil || depth > maxDupDepth || n.Kind == yaml.AliasNode {
		return
	}
	if n.Kind == yaml.MappingNode {
		dropMappingDuplicates(n, out)
	}
	for _, c := range n.Content {
		dropDuplicates(c, depth+1, out)
	}
}

func dropMappingDuplicates(n *yaml.Node, out *[]DuplicateKey) {
	first := map[string]int{} // key -> line of its first occurrence
	last := map[string]int{}  // key -> index of its last key node
	dups := false
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			continue
		}
		if line, ok := first[k.Value]; ok {
			*out = append(*out, DuplicateKey{Key: k.Value, First: line, Line: k.Line})
			dups = true
		} else {
			first[k.Value] = k.Line
		}
		last[k.Value] = i
	}
	if !dups {
		return
	}
	kept := make([]*yaml.Node, 0, 2*len(last))
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind == yaml.ScalarNode && last[k.Value] != i {
			continue
		}
		kept = append(kept, k, n.Content[i+1])
	}
	n.Content = kept
}
