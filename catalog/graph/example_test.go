package graph_test

import (
	"context"
	"fmt"
	"os"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/graph"
)

func load(dir string) *catalog.Package {
	c, err := catalog.LoadDir(context.Background(), dir, "example")
	if err != nil {
		panic(err)
	}
	return c.Packages["op"]
}

// The whole graph of one channel, as `olmops graph` draws it.
func ExampleBuild() {
	g := graph.Build(load("testdata/after"), "fast")
	if err := g.Mermaid(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// ---
	// title: "op upgrade graph"
	// ---
	// flowchart LR
	//   subgraph c0["channel fast"]
	//     c0n0["op.v1.4.0<br/>1.4.0"]
	//     c0n1["op.v2.0.0<br/>2.0.0"]
	//     c0n2["op.v2.1.0<br/>2.1.0<br/>head"]
	//     c0n3["op.v1.9.0<br/>not in channel"]
	//   end
	//   c0n0 --> c0n1
	//   c0n1 --> c0n2
	//   c0n3 -. skips .-> c0n2
	//   classDef head stroke-width:3px,font-weight:bold
	//   classDef deprecated fill:#fde2e2,stroke:#c0392b
	//   classDef missing stroke-dasharray:4 3,color:#888888
	//   class c0n2 head
	//   class c0n3 missing
	//   linkStyle 2 stroke-dasharray:6 4
}

// A pull-request body shows the upgrade 1.3.0 → 2.0.0 in its channel: the
// path and its direct neighbours, the installed bundle marked.
func ExampleAround() {
	g := graph.Build(load("testdata/after"), "stable")
	path := []string{"op.v1.3.0", "op.v2.0.0"}
	fmt.Print(graph.Around(g, path, 0).Mark(graph.Options{From: path[0], Highlight: path[1:]}).MermaidBlock())
	// Output:
	// ```mermaid
	// ---
	// title: "op upgrade graph"
	// ---
	// flowchart LR
	//   subgraph c0["channel stable (default)"]
	//     c0n0["op.v1.3.0<br/>1.3.0<br/>installed"]
	//     c0n1["op.v2.0.0<br/>2.0.0<br/>head"]
	//     c0more["… 4 more"]
	//   end
	//   c0n0 -. skipRange .-> c0n1
	//   classDef head stroke-width:3px,font-weight:bold
	//   classDef deprecated fill:#fde2e2,stroke:#c0392b
	//   classDef missing stroke-dasharray:4 3,color:#888888
	//   classDef path stroke:#2563eb,stroke-width:4px
	//   classDef installed fill:#dbeafe
	//   classDef more fill:none,stroke:none,color:#888888,font-style:italic
	//   class c0n1 head
	//   class c0n0,c0n1 path
	//   class c0n0 installed
	//   class c0more more
	//   linkStyle 0 stroke:#2563eb,stroke-width:4px,stroke-dasharray:2 3
	// ```
}

// The review bot says what a catalog change does to a package's graph.
func ExampleDiff() {
	d := graph.Diff(graph.Build(load("testdata/before"), "stable"), graph.Build(load("testdata/after"), "stable"))
	fmt.Print(d.Markdown())
	// Output:
	// | change | channel | what |
	// | --- | --- | --- |
	// | head moved | stable | `op.v1.4.0` → `op.v2.0.0` |
	// | entry added | stable | `op.v2.0.0` (2.0.0) |
	// | edge added | stable | `op.v1.1.0` → `op.v2.0.0` (skipRange) |
	// | edge added | stable | `op.v1.2.0` → `op.v2.0.0` (skipRange) |
	// | edge added | stable | `op.v1.3.0` → `op.v2.0.0` (skipRange) |
	// | edge added | stable | `op.v1.4.0` → `op.v2.0.0` (replaces) |
	// | edge added | stable | `op.v1.4.0` → `op.v2.0.0` (skipRange) |
	// | edge removed | stable | `op.v1.2.0` → `op.v1.4.0` (skips) |
	// | deprecated |  | bundle `op.v1.0.0`: loses data on upgrade; skip it |
}
