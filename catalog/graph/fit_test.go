package graph

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/internal/corpus"
)

// mermaidEdge matches an edge line of a Mermaid drawing.
var mermaidEdge = regexp.MustCompile(`(?m)^  c\S+ (-->|-\. \w+ \.->) c\S+$`)

// drawn renders g as Mermaid and checks the drawing is within Mermaid's
// limits, returning the text.
func drawn(t *testing.T, g Graph) string {
	t.Helper()
	var b strings.Builder
	if err := g.Mermaid(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if edges := len(mermaidEdge.FindAllString(out, -1)); edges > MaxMermaidEdges {
		t.Errorf("drawing has %d edges, Mermaid draws at most %d", edges, MaxMermaidEdges)
	}
	if len(out) > MaxMermaidChars {
		t.Errorf("drawing has %d characters, Mermaid draws at most %d", len(out), MaxMermaidChars)
	}
	return out
}

// chain is one channel of n bundles op.v0.0.i, each replacing the one
// before; skipRange makes every bundle also skip all older ones.
func chain(n int, skipRange bool) Graph {
	ch := Channel{Name: "stable", Default: true}
	for i := range n {
		ch.Nodes = append(ch.Nodes, Node{Name: fmt.Sprintf("op.v0.0.%d", i), Version: fmt.Sprintf("0.0.%d", i), Head: i == n-1})
		if i == 0 {
			continue
		}
		if skipRange {
			for j := range i {
				ch.Edges = append(ch.Edges, Edge{From: j, To: i, Kind: SkipRange})
			}
		}
		ch.Edges = append(ch.Edges, Edge{From: i - 1, To: i, Kind: Replaces})
	}
	return Graph{Package: "op", Channels: []Channel{ch}}
}

func TestFitLeavesSmallGraphsAlone(t *testing.T) {
	g := chain(20, true) // 190 skipRange edges, 19 replaces: within the limits
	var whole strings.Builder
	if err := g.mermaid(&whole); err != nil {
		t.Fatal(err)
	}
	if got := drawn(t, g); got != whole.String() {
		t.Errorf("a graph within Mermaid's limits was cut:\n%s", got)
	}
}

func TestFitFoldsSkipRangeFans(t *testing.T) {
	g := chain(60, true) // 1,770 skipRange edges
	out := drawn(t, g)
	if !strings.Contains(out, "skipRange edges folded into labels") {
		t.Errorf("the title does not say edges were folded:\n%s", out[:200])
	}
	if !strings.Contains(out, "0.0.59<br/>head<br/>skipRange covers 58 more") {
		t.Errorf("the head's label does not count its 58 folded edges")
	}
	fit := Fit(g)
	if fit.Channels[0].Omitted != 0 {
		t.Errorf("folding alone fits 60 nodes, yet %d bundles were left out", fit.Channels[0].Omitted)
	}
	narrow := 0 // skipRange edges into the node whose fan is fanMax wide
	for _, e := range fit.Channels[0].Edges {
		if e.Kind == SkipRange && e.To == fanMax {
			narrow++
		}
		if e.Kind == Replaces || e.To <= fanMax {
			continue
		}
		if nearest := e.To - 1; e.From != nearest && !e.Path {
			t.Errorf("kept skipRange edge %d→%d, want only the nearest (%d→%d)", e.From, e.To, nearest, e.To)
		}
	}
	if narrow != fanMax {
		t.Errorf("a fan of %d skipRange edges kept %d; fans up to fanMax stay whole", fanMax, narrow)
	}
}

func TestFitTrimsOldestKeepsMarks(t *testing.T) {
	g := chain(1200, false).Mark(Options{From: "op.v0.0.3", Highlight: []string{"op.v0.0.4"}})
	fit := Fit(g)
	ch := fit.Channels[0]
	if ch.Omitted == 0 || len(ch.Nodes)+ch.Omitted != 1200 {
		t.Fatalf("kept %d nodes, omitted %d of 1200", len(ch.Nodes), ch.Omitted)
	}
	names := map[string]bool{}
	for _, n := range ch.Nodes {
		names[n.Name] = true
	}
	for _, want := range []string{"op.v0.0.3", "op.v0.0.4", "op.v0.0.1199", "op.v0.0.1198"} {
		if !names[want] {
			t.Errorf("%s was left out; marked bundles and the newest stay", want)
		}
	}
	if names["op.v0.0.100"] {
		t.Errorf("an old unmarked bundle stayed while newer ones were cut")
	}
	out := drawn(t, g)
	if !strings.Contains(out, moreNote(ch.Omitted)) {
		t.Errorf("the drawing does not say %d bundles were left out", ch.Omitted)
	}
}

func TestFitDropsChannelsLast(t *testing.T) {
	g := Graph{Package: "op"}
	for i := range 2000 {
		g.Channels = append(g.Channels, Channel{Name: fmt.Sprintf("ch-%04d", i), Nodes: []Node{{Name: "op.v1.0.0", Head: true}}})
	}
	out := drawn(t, g)
	if !strings.Contains(out, "channels left out") {
		t.Errorf("the title does not say channels were left out")
	}
}

// TestFitRealCatalog draws the package with the most edges of the corpus,
// gpu-operator-certified (2,280 edges, 89 kB of Mermaid whole), whole and
// around an upgrade, as graph and review draw it.
func TestFitRealCatalog(t *testing.T) {
	dir := corpus.Path(t, "catalogs/ocp-v4.20/certified-operators/gpu-operator-certified")
	c, err := catalog.LoadDir(t.Context(), dir, "certified-operators")
	if err != nil {
		t.Fatal(err)
	}
	p := c.Packages["gpu-operator-certified"]
	if p == nil {
		t.Fatalf("no package gpu-operator-certified in %s", dir)
	}
	g := Build(p, "")
	out := drawn(t, g)
	for _, ch := range g.Channels {
		if !strings.Contains(out, mermaidText(ch.title())) {
			t.Errorf("channel %s is not drawn", ch.Name)
		}
		for _, n := range ch.Nodes {
			if n.Head && !strings.Contains(out, n.Name) {
				t.Errorf("head %s of channel %s is not drawn", n.Name, ch.Name)
			}
		}
	}
	def := p.Channels[p.DefaultChannel]
	path := []string{def.Entries[0].Name, def.Entries[len(def.Entries)-1].Name}
	marked := drawn(t, g.Mark(Options{From: path[0], Highlight: path[1:]}))
	for _, name := range path {
		if !strings.Contains(marked, name) {
			t.Errorf("path bundle %s is not drawn", name)
		}
	}
}

// TestFitRealCatalogDiff draws what a review shows when a new head lands in
// every channel of gpu-operator-certified.
func TestFitRealCatalogDiff(t *testing.T) {
	dir := corpus.Path(t, "catalogs/ocp-v4.20/certified-operators/gpu-operator-certified")
	c, err := catalog.LoadDir(t.Context(), dir, "certified-operators")
	if err != nil {
		t.Fatal(err)
	}
	after := Build(c.Packages["gpu-operator-certified"], "")
	before := after.clone()
	for ci, ch := range before.Channels {
		keep := make([]bool, len(ch.Nodes))
		for i, n := range ch.Nodes {
			keep[i] = !n.Head
		}
		before.Channels[ci] = subChannel(ch, keep)
	}
	d := Diff(before, after)
	if d.Empty() {
		t.Fatal("removing every head made no difference")
	}
	var b strings.Builder
	if err := d.Mermaid(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if edges := len(mermaidEdge.FindAllString(out, -1)); edges > MaxMermaidEdges || len(out) > MaxMermaidChars {
		t.Errorf("the review's drawing has %d edges and %d characters; Mermaid draws at most %d and %d",
			edges, len(out), MaxMermaidEdges, MaxMermaidChars)
	}
}
