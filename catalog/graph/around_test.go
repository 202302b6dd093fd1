package graph

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestGraphAround(t *testing.T) {
	g := Build(loadDir(t, "after"), "")
	tests := []struct {
		name   string
		path   []string
		radius int
		want   []string
	}{
		{"radius 0", []string{"op.v1.1.0", "op.v1.2.0"}, 0, []string{
			"stable: 1.1.0 1.2.0 | 1.1.0>1.2.0 replaces | +4",
		}},
		{"radius 1", []string{"op.v1.1.0", "op.v1.2.0"}, 1, []string{
			"stable: 1.0.0 1.1.0 1.2.0 1.3.0 2.0.0 | 1.0.0>1.1.0 replaces, 1.1.0>1.2.0 replaces, 1.2.0>1.3.0 replaces, " +
				"1.1.0>2.0.0 skipRange, 1.2.0>2.0.0 skipRange, 1.3.0>2.0.0 skipRange | +1",
		}},
		{"radius 2 reaches the whole channel", []string{"op.v1.1.0", "op.v1.2.0"}, 2, []string{
			summary(Build(loadDir(t, "after"), "stable"))[0],
		}},
		{"negative radius is 0", []string{"op.v1.0.0"}, -1, []string{
			"stable: 1.0.0 |  | +5",
		}},
		{"path at the head, in two channels", []string{"op.v1.4.0", "op.v2.0.0"}, 1, []string{
			"fast: 1.4.0 2.0.0 2.1.0 | 1.4.0>2.0.0 replaces, 2.0.0>2.1.0 replaces | +1",
			"stable: 1.1.0 1.2.0 1.3.0 1.4.0 2.0.0 | 1.1.0>1.2.0 replaces, 1.2.0>1.3.0 replaces, 1.3.0>1.4.0 replaces, " +
				"1.1.0>2.0.0 skipRange, 1.2.0>2.0.0 skipRange, 1.3.0>2.0.0 skipRange, 1.4.0>2.0.0 replaces, " +
				"1.4.0>2.0.0 skipRange | +1",
		}},
		{"path across skipRange", []string{"op.v1.2.0", "op.v2.0.0"}, 0, []string{
			"stable: 1.2.0 2.0.0 | 1.2.0>2.0.0 skipRange | +4",
		}},
		{"path across channels keeps every channel with a step", []string{"op.v1.0.0", "op.v2.1.0"}, 0, []string{
			"fast: 2.1.0 |  | +3",
			"stable: 1.0.0 |  | +5",
		}},
		{"from a bundle the channel lacks", []string{"op.v1.9.0", "op.v2.1.0"}, 0, []string{
			"fast: 2.1.0 1.9.0 | 1.9.0>2.1.0 skips | +2",
		}},
		{"unknown bundles", []string{"op.v9.9.9"}, 3, nil},
		{"no path", nil, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := summary(Around(g, tt.path, tt.radius)); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Around(%v, %d):\n got %q\nwant %q", tt.path, tt.radius, got, tt.want)
			}
		})
	}
	if got, want := summary(g), summary(Build(loadDir(t, "after"), "")); !reflect.DeepEqual(got, want) {
		t.Error("Around changed the graph it was given")
	}
}

// chainYAML is a stable channel of n bundles op.v1.<i>.0, each replacing
// the one before.
func chainYAML(n int) string {
	var blobs strings.Builder
	blobs.WriteString("---\nschema: olm.channel\npackage: op\nname: stable\nentries:\n")
	versions := make([]string, n)
	for i := range n {
		versions[i] = fmt.Sprintf("1.%d.0", i)
		fmt.Fprintf(&blobs, "  - name: op.v%s\n", versions[i])
		if i > 0 {
			fmt.Fprintf(&blobs, "    replaces: op.v%s\n", versions[i-1])
		}
	}
	return opYAML(blobs.String(), versions...)
}

func TestGraphAroundCap(t *testing.T) {
	g := Build(loadYAML(t, chainYAML(100)), "")
	sub := Around(g, []string{"op.v1.50.0", "op.v1.51.0"}, 1000)
	ch := sub.Channels[0]
	if len(ch.Nodes) != MaxNodes || ch.Omitted != 100-MaxNodes {
		t.Fatalf("kept %d nodes, omitted %d; want %d and %d", len(ch.Nodes), ch.Omitted, MaxNodes, 100-MaxNodes)
	}
	// The nearest are kept: 19 below the path, 19 above.
	if first, last := ch.Nodes[0].Name, ch.Nodes[len(ch.Nodes)-1].Name; first != "op.v1.31.0" || last != "op.v1.70.0" {
		t.Errorf("kept %s … %s, want op.v1.31.0 … op.v1.70.0", first, last)
	}
	if len(ch.Edges) != MaxNodes-1 {
		t.Errorf("kept %d edges, want %d", len(ch.Edges), MaxNodes-1)
	}
	var b strings.Builder
	if err := sub.Mermaid(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `c0more["… 60 more"]`) || !strings.Contains(b.String(), "class c0more more") {
		t.Errorf("no note for the omitted nodes:\n%s", b.String())
	}
}

func TestGraphMark(t *testing.T) {
	g := Build(loadDir(t, "after"), "stable")
	tests := []struct {
		name      string
		opts      Options
		nodes     string // names on the path, then * for the installed one
		pathEdges string
	}{
		{"from before the path", Options{From: "op.v1.1.0", Highlight: []string{"op.v1.2.0", "op.v2.0.0"}},
			"1.1.0* 1.2.0 2.0.0", "1.1.0>1.2.0 replaces, 1.2.0>2.0.0 skipRange"},
		{"from repeated at the start", Options{From: "op.v1.1.0", Highlight: []string{"op.v1.1.0", "op.v1.2.0"}},
			"1.1.0* 1.2.0", "1.1.0>1.2.0 replaces"},
		{"both edge kinds of one step", Options{Highlight: []string{"op.v1.4.0", "op.v2.0.0"}},
			"1.4.0 2.0.0", "1.4.0>2.0.0 replaces, 1.4.0>2.0.0 skipRange"},
		{"fresh install", Options{Highlight: []string{"op.v2.0.0"}}, "2.0.0", ""},
		{"nothing", Options{}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := g.Mark(tt.opts).Channels[0]
			var nodes, edges []string
			for _, n := range m.Nodes {
				name := strings.TrimPrefix(n.Name, "op.v")
				if n.Installed {
					name += "*"
				}
				if n.Path {
					nodes = append(nodes, name)
				}
			}
			for _, e := range m.Edges {
				if e.Path {
					edges = append(edges, strings.TrimPrefix(m.Nodes[e.From].Name, "op.v")+">"+
						strings.TrimPrefix(m.Nodes[e.To].Name, "op.v")+" "+e.Kind.String())
				}
			}
			if got := strings.Join(nodes, " "); got != tt.nodes {
				t.Errorf("path nodes %q, want %q", got, tt.nodes)
			}
			if got := strings.Join(edges, ", "); got != tt.pathEdges {
				t.Errorf("path edges %q, want %q", got, tt.pathEdges)
			}
		})
	}
	for _, n := range g.Channels[0].Nodes {
		if n.Path || n.Installed {
			t.Fatalf("Mark changed the graph it was given: %+v", n)
		}
	}
}

func TestGraphAroundGolden(t *testing.T) {
	g := Build(loadDir(t, "after"), "")
	tests := []struct {
		golden string
		from   string
		path   []string
		radius int
	}{
		{"around-skiprange.md", "op.v1.2.0", []string{"op.v2.0.0"}, 1},
		{"around-head.md", "op.v2.0.0", []string{"op.v2.1.0"}, 2},
		{"around-install.md", "", []string{"op.v1.4.0"}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			path := append([]string{tt.from}, tt.path...)
			if tt.from == "" {
				path = tt.path
			}
			got := Around(g, path, tt.radius).Mark(Options{Highlight: tt.path, From: tt.from}).MermaidBlock()
			golden(t, tt.golden, got)
			if !strings.HasPrefix(got, "```mermaid\n---\n") || !strings.HasSuffix(got, "\n```\n") {
				t.Errorf("not a fenced mermaid block:\n%s", got)
			}
		})
	}
}

func TestGraphDOTMarks(t *testing.T) {
	g := Around(Build(loadDir(t, "after"), "stable"), []string{"op.v1.3.0", "op.v1.4.0"}, 0).
		Mark(Options{From: "op.v1.3.0", Highlight: []string{"op.v1.4.0"}})
	var b strings.Builder
	if err := g.DOT(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"stable/op.v1.3.0" [label="op.v1.3.0\n1.3.0\ninstalled", color="#2563eb", penwidth=3];`,
		`"stable/op.v1.3.0" -> "stable/op.v1.4.0" [style=solid, color="#2563eb", penwidth=3];`,
		`"stable/…" [label="… 4 more", shape=plaintext, fontcolor="#888888"];`,
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("DOT lacks %s\n%s", want, b.String())
		}
	}
}
