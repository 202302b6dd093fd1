package graph

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// DOT writes g as a Graphviz digraph, one cluster per channel, with the
// same marks as Mermaid draws.
func (g Graph) DOT(w io.Writer) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(g.Package))
	fmt.Fprintf(bw, "  label=%s;\n  labelloc=t;\n  rankdir=LR;\n  node [shape=box];\n", dotQuote(g.title()))
	for ci, ch := range g.Channels {
		id := func(i int) string { return dotQuote(ch.Name + "/" + ch.Nodes[i].Name) }
		fmt.Fprintf(bw, "  subgraph cluster_%d {\n    label=%s;\n", ci, dotQuote(ch.title()))
		if ch.Deprecated != "" {
			fmt.Fprintln(bw, `    style=dashed; color="#c0392b";`)
		}
		for i, n := range ch.Nodes {
			fmt.Fprintf(bw, "    %s [%s];\n", id(i), n.dotAttrs())
		}
		if ch.Omitted > 0 {
			fmt.Fprintf(bw, "    %s [label=%s, shape=plaintext, fontcolor=\"#888888\"];\n",
				dotQuote(ch.Name+"/…"), dotQuote(moreNote(ch.Omitted)))
		}
		fmt.Fprintln(bw, "  }")
		for _, e := range ch.Edges {
			fmt.Fprintf(bw, "  %s -> %s [%s];\n", id(e.From), id(e.To), e.dotAttrs())
		}
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

// dotAttrList is an ordered attribute list where setting a name again
// replaces its value in place.
type dotAttrList struct {
	names, values []string
}

func (l *dotAttrList) set(name, value string) {
	for i, n := range l.names {
		if n == name {
			l.values[i] = value
			return
		}
	}
	l.names = append(l.names, name)
	l.values = append(l.values, value)
}

func (l *dotAttrList) String() string {
	parts := make([]string, len(l.names))
	for i := range l.names {
		parts[i] = l.names[i] + "=" + l.values[i]
	}
	return strings.Join(parts, ", ")
}

func (n Node) dotAttrs() string {
	lines := n.lines()
	for j := range lines {
		lines[j] = dotEscape(lines[j])
	}
	var a dotAttrList
	a.set("label", `"`+strings.Join(lines, `\n`)+`"`)
	var style []string
	switch {
	case n.Missing:
		style = append(style, "dashed")
		a.set("fontcolor", `"#888888"`)
		a.set("color", `"#888888"`)
	case n.Head:
		style = append(style, "bold")
		a.set("penwidth", "2")
	}
	if n.Deprecated != "" {
		style = append(style, "filled")
		a.set("fillcolor", `"#fde2e2"`)
	}
	if n.Path {
		a.set("color", `"#2563eb"`)
		a.set("penwidth", "3")
	}
	switch n.Change {
	case Added:
		a.set("color", `"#1a7f37"`)
	case Removed:
		a.set("color", `"#cf222e"`)
		a.set("fontcolor", `"#cf222e"`)
		if !n.Missing {
			style = append(style, "dashed")
		}
	}
	if len(style) > 0 {
		a.set("style", `"`+strings.Join(style, ",")+`"`)
	}
	return a.String()
}

func (e Edge) dotAttrs() string {
	var a dotAttrList
	switch e.Kind {
	case Replaces:
		a.set("style", "solid")
	case Skips:
		a.set("style", "dashed")
		a.set("label", `"skips"`)
	case SkipRange:
		a.set("style", "dotted")
		a.set("label", `"skipRange"`)
	}
	if e.Path {
		a.set("color", `"#2563eb"`)
		a.set("penwidth", "3")
	}
	switch e.Change {
	case Added:
		a.set("color", `"#1a7f37"`)
	case Removed:
		a.set("color", `"#cf222e"`)
		a.set("style", "dashed")
	}
	return a.String()
}

func dotEscape(s string) string {
	return dotEscaper.Replace(s)
}

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)

func dotQuote(s string) string { return `"` + dotEscape(s) + `"` }
