package graph

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// mermaidClasses are the node classes in the order their class lines are
// written. The first three are always defined, so graphs without marks
// draw as they always have.
var mermaidClasses = []struct{ name, style string }{
	{"head", "stroke-width:3px,font-weight:bold"},
	{"deprecated", "fill:#fde2e2,stroke:#c0392b"},
	{"missing", "stroke-dasharray:4 3,color:#888888"},
	{"path", "stroke:#2563eb,stroke-width:4px"},
	{"installed", "fill:#dbeafe"},
	{"added", "fill:#dafbe1,stroke:#1a7f37"},
	{"removed", "fill:#ffebe9,stroke:#cf222e,stroke-dasharray:4 3,color:#cf222e"},
	{"more", "fill:none,stroke:none,color:#888888,font-style:italic"},
}

const alwaysDefined = 3

// Mermaid writes g as a Mermaid flowchart, one subgraph per channel. Edge
// styles are set with linkStyle by edge number: replaces solid, skips
// dashed, skipRange dotted; marked paths blue and bold, added edges green,
// removed ones red and dashed. A graph beyond Mermaid's limits is drawn as
// Fit cuts it; DOT draws the whole graph.
func (g Graph) Mermaid(w io.Writer) error { return Fit(g).mermaid(w) }

func (g Graph) mermaid(w io.Writer) error {
	bw := bufio.NewWriter(w)
	title, _ := json.Marshal(g.title()) // a JSON string is a YAML string
	fmt.Fprintf(bw, "---\ntitle: %s\n---\nflowchart LR\n", title)
	classes := map[string][]string{}
	links := newLinkStyles()
	edgeNo := 0
	for ci, ch := range g.Channels {
		id := func(i int) string { return fmt.Sprintf("c%dn%d", ci, i) }
		fmt.Fprintf(bw, "  subgraph c%d[\"%s\"]\n", ci, mermaidText(ch.title()))
		for i, n := range ch.Nodes {
			fmt.Fprintf(bw, "    %s[\"%s\"]\n", id(i), mermaidLabel(n.lines()))
			for _, c := range n.classes() {
				classes[c] = append(classes[c], id(i))
			}
		}
		if ch.Omitted > 0 {
			more := fmt.Sprintf("c%dmore", ci)
			fmt.Fprintf(bw, "    %s[\"%s\"]\n", more, mermaidText(moreNote(ch.Omitted)))
			classes["more"] = append(classes["more"], more)
		}
		fmt.Fprintln(bw, "  end")
		for _, e := range ch.Edges {
			fmt.Fprintf(bw, "  %s %s %s\n", id(e.From), mermaidArrow(e.Kind), id(e.To))
			links.add(e.style(), edgeNo)
			edgeNo++
		}
	}
	for i, c := range mermaidClasses {
		if i < alwaysDefined || len(classes[c.name]) > 0 {
			fmt.Fprintf(bw, "  classDef %s %s\n", c.name, c.style)
		}
	}
	for _, c := range mermaidClasses {
		if ids := classes[c.name]; len(ids) > 0 {
			fmt.Fprintf(bw, "  class %s %s\n", strings.Join(ids, ","), c.name)
		}
	}
	links.write(bw)
	return bw.Flush()
}

// MermaidBlock returns g's Mermaid drawing fenced for GitHub Markdown.
func (g Graph) MermaidBlock() string {
	var b strings.Builder
	b.WriteString("```mermaid\n")
	_ = g.Mermaid(&b) // a strings.Builder does not fail
	b.WriteString("```\n")
	return b.String()
}

func mermaidArrow(k EdgeKind) string {
	switch k {
	case Skips:
		return "-. skips .->"
	case SkipRange:
		return "-. skipRange .->"
	}
	return "-->"
}

// classes are the Mermaid classes of a node.
func (n Node) classes() []string {
	var cs []string
	switch {
	case n.Missing:
		cs = append(cs, "missing")
	case n.Head:
		cs = append(cs, "head")
	}
	if n.Deprecated != "" {
		cs = append(cs, "deprecated")
	}
	if n.Path {
		cs = append(cs, "path")
	}
	if n.Installed {
		cs = append(cs, "installed")
	}
	switch n.Change {
	case Added:
		cs = append(cs, "added")
	case Removed:
		cs = append(cs, "removed")
	}
	return cs
}

// style is the CSS of an edge's line, "" for a plain solid line.
func (e Edge) style() string {
	var parts []string
	switch {
	case e.Change == Removed:
		parts = append(parts, "stroke:#cf222e")
	case e.Change == Added:
		parts = append(parts, "stroke:#1a7f37")
	case e.Path:
		parts = append(parts, "stroke:#2563eb")
	}
	switch {
	case e.Path:
		parts = append(parts, "stroke-width:4px")
	case e.Change == Added:
		parts = append(parts, "stroke-width:2px")
	}
	switch {
	case e.Change == Removed:
		parts = append(parts, "stroke-dasharray:4 3")
	case e.Kind == Skips:
		parts = append(parts, "stroke-dasharray:6 4")
	case e.Kind == SkipRange:
		parts = append(parts, "stroke-dasharray:2 3")
	}
	return strings.Join(parts, ",")
}

// linkStyles groups edge numbers by style: the plain skips and skipRange
// styles first, then others in the order they first appear.
type linkStyles struct {
	order []string
	edges map[string][]string
}

func newLinkStyles() *linkStyles {
	return &linkStyles{order: []string{"stroke-dasharray:6 4", "stroke-dasharray:2 3"}, edges: map[string][]string{}}
}

func (l *linkStyles) add(style string, edgeNo int) {
	if style == "" {
		return
	}
	if _, ok := l.edges[style]; !ok && !slices.Contains(l.order, style) {
		l.order = append(l.order, style)
	}
	l.edges[style] = append(l.edges[style], strconv.Itoa(edgeNo))
}

func (l *linkStyles) write(w io.Writer) {
	for _, s := range l.order {
		if nums := l.edges[s]; len(nums) > 0 {
			fmt.Fprintf(w, "  linkStyle %s %s\n", strings.Join(nums, ","), s)
		}
	}
}

func mermaidLabel(lines []string) string {
	for i := range lines {
		lines[i] = mermaidText(lines[i])
	}
	return strings.Join(lines, "<br/>")
}

// mermaidText escapes text for a quoted Mermaid label.
func mermaidText(s string) string {
	return mermaidEscaper.Replace(s)
}

// Mermaid's entity codes start with #, so # itself is one; a carriage
// return or a Unicode line break could end the code fence's line, and a
// backtick opens a Markdown string in a label.
var mermaidEscaper = strings.NewReplacer(`"`, "#quot;", "<", "#lt;", ">", "#gt;", "#", "#35;", "&", "#amp;", "`", "#96;",
	"\n", " ", "\r", " ", "\u2028", " ", "\u2029", " ", "\u0085", " ")
