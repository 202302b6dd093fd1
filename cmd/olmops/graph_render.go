package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// graphTitle is the title both formats show.
func graphTitle(g upgradeGraph) string {
	t := g.Package + " upgrade graph"
	if g.Deprecated != "" {
		t += " (package deprecated: " + g.Deprecated + ")"
	}
	return t
}

func channelTitle(cg channelGraph) string {
	var notes []string
	if cg.Default {
		notes = append(notes, "default")
	}
	if cg.Deprecated != "" {
		notes = append(notes, "deprecated: "+cg.Deprecated)
	}
	if cg.HeadErr != "" {
		notes = append(notes, "no single head")
	}
	if len(notes) == 0 {
		return "channel " + cg.Name
	}
	return "channel " + cg.Name + " (" + strings.Join(notes, "; ") + ")"
}

// nodeLines are the lines of a node's label.
func nodeLines(n graphNode) []string {
	lines := []string{n.Name}
	if n.Version != "" {
		lines = append(lines, n.Version)
	}
	switch {
	case n.Missing:
		lines = append(lines, "not in channel")
	case n.Head:
		lines = append(lines, "head")
	}
	if n.Deprecated != "" {
		lines = append(lines, "deprecated")
	}
	return lines
}

// writeMermaid writes g as a Mermaid flowchart. Edge styles are set with
// linkStyle by edge number: replaces solid, skips dashed, skipRange dotted.
func writeMermaid(w io.Writer, g upgradeGraph) error {
	bw := bufio.NewWriter(w)
	title, _ := json.Marshal(graphTitle(g)) // a JSON string is a YAML string
	fmt.Fprintf(bw, "---\ntitle: %s\n---\nflowchart LR\n", title)
	var heads, deprecated, missing []string
	var dashed, dotted []string
	edgeNo := 0
	for ci, cg := range g.Channels {
		id := func(i int) string { return fmt.Sprintf("c%dn%d", ci, i) }
		fmt.Fprintf(bw, "  subgraph c%d[\"%s\"]\n", ci, mermaidText(channelTitle(cg)))
		for i, n := range cg.Nodes {
			lines := nodeLines(n)
			for j := range lines {
				lines[j] = mermaidText(lines[j])
			}
			fmt.Fprintf(bw, "    %s[\"%s\"]\n", id(i), strings.Join(lines, "<br/>"))
			switch {
			case n.Missing:
				missing = append(missing, id(i))
			case n.Head:
				heads = append(heads, id(i))
			}
			if n.Deprecated != "" {
				deprecated = append(deprecated, id(i))
			}
		}
		fmt.Fprintln(bw, "  end")
		for _, e := range cg.Edges {
			switch e.Kind {
			case edgeReplaces:
				fmt.Fprintf(bw, "  %s --> %s\n", id(e.From), id(e.To))
			case edgeSkips:
				fmt.Fprintf(bw, "  %s -. skips .-> %s\n", id(e.From), id(e.To))
				dashed = append(dashed, fmt.Sprint(edgeNo))
			case edgeSkipRange:
				fmt.Fprintf(bw, "  %s -. skipRange .-> %s\n", id(e.From), id(e.To))
				dotted = append(dotted, fmt.Sprint(edgeNo))
			}
			edgeNo++
		}
	}
	fmt.Fprintln(bw, "  classDef head stroke-width:3px,font-weight:bold")
	fmt.Fprintln(bw, "  classDef deprecated fill:#fde2e2,stroke:#c0392b")
	fmt.Fprintln(bw, "  classDef missing stroke-dasharray:4 3,color:#888888")
	for _, c := range []struct {
		class string
		ids   []string
	}{{"head", heads}, {"deprecated", deprecated}, {"missing", missing}} {
		if len(c.ids) > 0 {
			fmt.Fprintf(bw, "  class %s %s\n", strings.Join(c.ids, ","), c.class)
		}
	}
	if len(dashed) > 0 {
		fmt.Fprintf(bw, "  linkStyle %s stroke-dasharray:6 4\n", strings.Join(dashed, ","))
	}
	if len(dotted) > 0 {
		fmt.Fprintf(bw, "  linkStyle %s stroke-dasharray:2 3\n", strings.Join(dotted, ","))
	}
	return bw.Flush()
}

// mermaidText escapes text for a quoted Mermaid label.
func mermaidText(s string) string {
	return strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "\n", " ").Replace(s)
}

// writeDOT writes g as a Graphviz digraph, one cluster per channel.
func writeDOT(w io.Writer, g upgradeGraph) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "digraph %s {\n", dotQuote(g.Package))
	fmt.Fprintf(bw, "  label=%s;\n  labelloc=t;\n  rankdir=LR;\n  node [shape=box];\n", dotQuote(graphTitle(g)))
	for ci, cg := range g.Channels {
		id := func(i int) string { return dotQuote(cg.Name + "/" + cg.Nodes[i].Name) }
		fmt.Fprintf(bw, "  subgraph cluster_%d {\n    label=%s;\n", ci, dotQuote(channelTitle(cg)))
		if cg.Deprecated != "" {
			fmt.Fprintln(bw, `    style=dashed; color="#c0392b";`)
		}
		for i, n := range cg.Nodes {
			lines := nodeLines(n)
			for j := range lines {
				lines[j] = dotEscape(lines[j])
			}
			attrs := []string{`label="` + strings.Join(lines, `\n`) + `"`}
			var style []string
			switch {
			case n.Missing:
				style = append(style, "dashed")
				attrs = append(attrs, `fontcolor="#888888"`, `color="#888888"`)
			case n.Head:
				style = append(style, "bold")
				attrs = append(attrs, "penwidth=2")
			}
			if n.Deprecated != "" {
				style = append(style, "filled")
				attrs = append(attrs, `fillcolor="#fde2e2"`)
			}
			if len(style) > 0 {
				attrs = append(attrs, `style="`+strings.Join(style, ",")+`"`)
			}
			fmt.Fprintf(bw, "    %s [%s];\n", id(i), strings.Join(attrs, ", "))
		}
		fmt.Fprintln(bw, "  }")
		for _, e := range cg.Edges {
			var attrs string
			switch e.Kind {
			case edgeReplaces:
				attrs = "style=solid"
			case edgeSkips:
				attrs = `style=dashed, label="skips"`
			case edgeSkipRange:
				attrs = `style=dotted, label="skipRange"`
			}
			fmt.Fprintf(bw, "  %s -> %s [%s];\n", id(e.From), id(e.To), attrs)
		}
	}
	fmt.Fprintln(bw, "}")
	return bw.Flush()
}

func dotEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

func dotQuote(s string) string { return `"` + dotEscape(s) + `"` }
