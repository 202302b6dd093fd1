package graph

import (
	"reflect"
	"strings"
	"testing"
)

const chain3 = `---
schema: olm.channel
package: op
name: stable
entries:
  - name: op.v1.0.0
  - name: op.v1.1.0
    replaces: op.v1.0.0
  - name: op.v1.2.0
    replaces: op.v1.1.0
`

func TestGraphDiff(t *testing.T) {
	tests := []struct {
		name          string
		before, after string // YAML of package op; "" for none
		want          GraphDiff
	}{
		{
			name:   "head moved",
			before: opYAML(chain3, "1.0.0", "1.1.0", "1.2.0"),
			after:  opYAML(chain3+"  - name: op.v1.3.0\n    replaces: op.v1.2.0\n", "1.0.0", "1.1.0", "1.2.0", "1.3.0"),
			want: GraphDiff{
				EntriesAdded: []EntryRef{{"stable", "op.v1.3.0", "1.3.0"}},
				EdgesAdded:   []EdgeRef{{"stable", "op.v1.2.0", "op.v1.3.0", Replaces}},
				HeadsMoved:   []HeadMove{{"stable", "op.v1.2.0", "op.v1.3.0"}},
			},
		},
		{
			name:   "entry added",
			before: opYAML(chain3, "1.0.0", "1.1.0", "1.2.0"),
			after: opYAML(strings.Replace(chain3, "    replaces: op.v1.1.0\n",
				"    replaces: op.v1.1.0\n    skips: [op.v1.1.5]\n  - name: op.v1.1.5\n", 1), "1.0.0", "1.1.0", "1.1.5", "1.2.0"),
			want: GraphDiff{
				EntriesAdded: []EntryRef{{"stable", "op.v1.1.5", "1.1.5"}},
				EdgesAdded:   []EdgeRef{{"stable", "op.v1.1.5", "op.v1.2.0", Skips}},
			},
		},
		{
			name:   "edge removed",
			before: opYAML(chain3+"    skipRange: <1.1.0\n", "1.0.0", "1.1.0", "1.2.0"),
			after:  opYAML(chain3, "1.0.0", "1.1.0", "1.2.0"),
			want: GraphDiff{
				EdgesRemoved: []EdgeRef{{"stable", "op.v1.0.0", "op.v1.2.0", SkipRange}},
			},
		},
		{
			name:   "entry removed but still skipped",
			before: opYAML(chain3+"    skips: [op.v1.0.0]\n", "1.0.0", "1.1.0", "1.2.0"),
			after: opYAML(strings.Replace(chain3, "  - name: op.v1.0.0\n", "", 1)+"    skips: [op.v1.0.0]\n",
				"1.1.0", "1.2.0"),
			want: GraphDiff{
				EntriesRemoved: []EntryRef{{"stable", "op.v1.0.0", "1.0.0"}},
			},
		},
		{
			name:   "deprecation added",
			before: opYAML(chain3, "1.0.0", "1.1.0", "1.2.0"),
			after: opYAML(chain3+`---
schema: olm.deprecations
package: op
entries:
  - reference: {schema: olm.package}
    message: moved to op2
  - reference: {schema: olm.channel, name: stable}
    message: use fast | or candidate
  - reference: {schema: olm.bundle, name: op.v1.1.0}
    message: |
      breaks backups;
      upgrade to 1.2.0
`, "1.0.0", "1.1.0", "1.2.0"),
			want: GraphDiff{
				Deprecated: []Deprecation{
					{ScopePackage, "op", "moved to op2"},
					{ScopeChannel, "stable", "use fast | or candidate"},
					{ScopeBundle, "op.v1.1.0", "breaks backups;\nupgrade to 1.2.0\n"},
				},
			},
		},
		{
			name:   "channels added and removed",
			before: opYAML(strings.Replace(chain3, "name: stable", "name: beta", 1), "1.0.0", "1.1.0", "1.2.0"),
			after:  opYAML(chain3, "1.0.0", "1.1.0", "1.2.0"),
			want:   GraphDiff{ChannelsAdded: []string{"stable"}, ChannelsRemoved: []string{"beta"}},
		},
		{
			name:  "package added",
			after: opYAML(chain3, "1.0.0", "1.1.0", "1.2.0"),
			want:  GraphDiff{ChannelsAdded: []string{"stable"}},
		},
		{
			name:   "no change",
			before: opYAML(chain3, "1.0.0", "1.1.0", "1.2.0"),
			after:  opYAML(chain3, "1.0.0", "1.1.0", "1.2.0"),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var before, after Graph
			if tt.before != "" {
				before = Build(loadYAML(t, tt.before), "")
			}
			if tt.after != "" {
				after = Build(loadYAML(t, tt.after), "")
			}
			d := Diff(before, after)
			got := d
			got.Merged = Graph{}
			tt.want.Package = "op"
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Diff:\n got %+v\nwant %+v", got, tt.want)
			}
			if d.Empty() != (tt.name == "no change") {
				t.Errorf("Empty() = %v", d.Empty())
			}
			var mmd strings.Builder
			if err := d.Mermaid(&mmd); err != nil {
				t.Fatal(err)
			}
			file := "diff-" + strings.ReplaceAll(tt.name, " ", "-")
			golden(t, file+".mmd", mmd.String())
			golden(t, file+".md", d.Markdown())
			if again := Diff(before, after); again.Markdown() != d.Markdown() || again.MermaidBlock() != d.MermaidBlock() {
				t.Error("two diffs of the same graphs differ")
			}
		})
	}
}

func TestGraphDiffMerged(t *testing.T) {
	d := Diff(Build(loadDir(t, "before"), ""), Build(loadDir(t, "after"), ""))
	want := []string{
		"beta (removed): 1.4.0- | ",
		"fast (added): 1.4.0+ 2.0.0+ 2.1.0+ 1.9.0+ | 1.4.0>2.0.0 replaces+, 2.0.0>2.1.0 replaces+, 1.9.0>2.1.0 skips+",
		"stable: 1.0.0 1.1.0 1.2.0 1.3.0 1.4.0 2.0.0+ | 1.0.0>1.1.0 replaces, 1.1.0>1.2.0 replaces, 1.2.0>1.3.0 replaces, " +
			"1.2.0>1.4.0 skips-, 1.3.0>1.4.0 replaces, 1.1.0>2.0.0 skipRange+, 1.2.0>2.0.0 skipRange+, " +
			"1.3.0>2.0.0 skipRange+, 1.4.0>2.0.0 replaces+, 1.4.0>2.0.0 skipRange+",
	}
	mark := map[Change]string{Added: "+", Removed: "-"}
	var got []string
	for _, ch := range d.Merged.Channels {
		var nodes, edges []string
		for _, n := range ch.Nodes {
			nodes = append(nodes, strings.TrimPrefix(n.Name, "op.v")+mark[n.Change])
			if n.Head && n.Change == Removed {
				t.Errorf("removed node %s drawn as head", n.Name)
			}
		}
		for _, e := range ch.Edges {
			edges = append(edges, strings.TrimSuffix(nodes[e.From], "+")+">"+strings.TrimSuffix(nodes[e.To], "+")+" "+e.Kind.String()+mark[e.Change])
		}
		title := ch.Name
		if ch.Change != Unchanged {
			title += map[Change]string{Added: " (added)", Removed: " (removed)"}[ch.Change]
		}
		got = append(got, title+": "+strings.Join(nodes, " ")+" | "+strings.Join(edges, ", "))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("merged graph:\n got %q\nwant %q", got, want)
	}
	golden(t, "diff-example.md", d.Markdown()+"\n"+d.MermaidBlock())
}

func TestGraphDiffLarge(t *testing.T) {
	before := Build(loadYAML(t, chainYAML(80)), "")
	after := Build(loadYAML(t, strings.Replace(chainYAML(80), "  - name: op.v1.79.0\n", "  - name: op.v1.79.0\n    skipRange: '>=1.70.0 <1.79.0'\n", 1)), "")
	d := Diff(before, after)
	if len(d.EdgesAdded) != 9 {
		t.Fatalf("edges added = %v, want 9 skipRange edges", d.EdgesAdded)
	}
	drawn := d.drawing().Channels[0]
	// The ends of the new edges (1.70-1.79) and their neighbour 1.69.
	if len(drawn.Nodes) != 11 || drawn.Nodes[0].Name != "op.v1.69.0" || drawn.Omitted != 69 {
		t.Errorf("drew %d nodes from %s, omitted %d; want 11 from op.v1.69.0, 69 omitted", len(drawn.Nodes), drawn.Nodes[0].Name, drawn.Omitted)
	}
	if !strings.Contains(d.MermaidBlock(), `c0more["… 69 more"]`) {
		t.Error("the drawing does not say what it left out")
	}
}
