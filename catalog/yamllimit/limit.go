package yamllimit

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	yaml "go.yaml.in/yaml/v3"
)

// Defaults for Limits. MaxAliasNodes is far above anything a person writes
// by hand (a real overlay or catalog expands by at most a few hundred
// nodes) and far below what hurts: 100 000 nodes is a few tens of MB once
// copied.
const (
	DefaultMaxBytes      = 16 << 20
	DefaultMaxAliasNodes = 100_000
)

// Limits bound one YAML file. A zero field means its default.
type Limits struct {
	// MaxBytes is the largest file accepted.
	MaxBytes int64
	// MaxAliasNodes is how many nodes aliases may add to a document when
	// expanded, beyond the nodes written out.
	MaxAliasNodes int64
}

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxAliasNodes <= 0 {
		l.MaxAliasNodes = DefaultMaxAliasNodes
	}
	return l
}

// Error is a limit a file crossed.
type Error struct {
	Path string
	Line int // 0 when the whole file is at fault
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, e.Msg)
	}
	return e.Path + ": " + e.Msg
}

// Check parses data as a stream of YAML documents and returns an *Error
// when it is larger than lim.MaxBytes or a document's aliases expand past
// lim.MaxAliasNodes. It stops quietly at the first syntax error; the
// documents before it are checked.
func Check(path string, data []byte, lim Limits) error {
	lim = lim.withDefaults()
	if int64(len(data)) > lim.MaxBytes {
		return &Error{Path: path, Msg: fmt.Sprintf("file is %d bytes, more than the %d allowed", len(data), lim.MaxBytes)}
	}
	if !bytes.ContainsRune(data, '*') {
		return nil // no alias, nothing expands
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var doc yaml.Node
		if err := dec.Decode(&doc); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return nil // the caller's decoder reports it, with its own words
		}
		if err := CheckNode(path, &doc, lim.MaxAliasNodes); err != nil {
			return err
		}
	}
}

// CheckNode returns an *Error when the aliases in the parsed document n add
// more than maxAliasNodes nodes once expanded (0 means the default). It
// runs in time linear in the nodes written out, whatever they expand to.
func CheckNode(path string, n *yaml.Node, maxAliasNodes int64) error {
	if maxAliasNodes <= 0 {
		maxAliasNodes = DefaultMaxAliasNodes
	}
	c := &counter{memo: map[*yaml.Node]int64{}}
	total := c.expanded(n)
	if c.cycle != nil {
		return &Error{Path: path, Line: c.cycle.Line, Msg: "YAML alias refers to a node that contains it"}
	}
	if added := total - c.written; added > maxAliasNodes {
		return &Error{Path: path, Line: c.worst.Line, Msg: fmt.Sprintf(
			"YAML aliases expand the document by more than %d nodes (the limit); the alias *%s here alone expands to %d",
			maxAliasNodes, c.worst.Value, c.worstSize)}
	}
	return nil
}

// counter sizes a node graph as if every alias were replaced by a copy of
// its anchor, visiting each node written out once.
type counter struct {
	memo      map[*yaml.Node]int64
	written   int64 // nodes written out, aliases included
	worst     *yaml.Node
	worstSize int64
	cycle     *yaml.Node
}

const (
	inProgress = -1
	// saturated keeps sums of sizes from overflowing; it is far past any
	// limit.
	saturated = int64(1) << 60
)

func (c *counter) expanded(n *yaml.Node) int64 {
	if n == nil {
		return 0
	}
	if n.Kind == yaml.AliasNode {
		c.written++
		size := c.expanded(n.Alias)
		if c.worst == nil || size > c.worstSize {
			c.worst, c.worstSize = n, size
		}
		return size
	}
	switch s, ok := c.memo[n]; {
	case ok && s == inProgress:
		c.cycle = n
		return 0
	case ok:
		return s
	}
	c.memo[n] = inProgress
	c.written++
	size := int64(1)
	for _, child := range n.Content {
		size = min(size+c.expanded(child), saturated)
	}
	c.memo[n] = size
	return size
}
