package graph

import (
	"io"
	"strings"

	"github.com/olmops/olmops/catalog/markdown"
)

// Mermaid draws the merged graph: added nodes and edges green, removed ones
// red and dashed. A merged graph of more than MaxNodes nodes is cut down to
// what changed and its direct neighbours.
func (d GraphDiff) Mermaid(w io.Writer) error { return d.drawing().Mermaid(w) }

// MermaidBlock returns d's Mermaid drawing fenced for GitHub Markdown.
func (d GraphDiff) MermaidBlock() string { return d.drawing().MermaidBlock() }

func (d GraphDiff) drawing() Graph {
	total := 0
	for _, ch := range d.Merged.Channels {
		total += len(ch.Nodes)
	}
	if total <= MaxNodes {
		return d.Merged
	}
	return focus(d.Merged, d.changedNodes(), 1, MaxNodes)
}

// changedNodes marks, per merged channel, the nodes a change touches: added
// or removed nodes, ends of added or removed edges, moved heads and what
// became deprecated (a deprecated channel or package by its head).
func (d GraphDiff) changedNodes() [][]bool {
	moved := map[string]bool{}
	for _, h := range d.HeadsMoved {
		moved[h.Channel] = true
	}
	deprecated := map[Scope]map[string]bool{ScopePackage: {}, ScopeChannel: {}, ScopeBundle: {}}
	for _, dep := range d.Deprecated {
		deprecated[dep.Scope][dep.Name] = true
	}
	seeds := make([][]bool, len(d.Merged.Channels))
	for ci, ch := range d.Merged.Channels {
		s := make([]bool, len(ch.Nodes))
		headMarked := moved[ch.Name] || deprecated[ScopeChannel][ch.Name] || len(deprecated[ScopePackage]) > 0
		for i, n := range ch.Nodes {
			s[i] = n.Change != Unchanged || deprecated[ScopeBundle][n.Name] || (n.Head && headMarked)
		}
		for _, e := range ch.Edges {
			if e.Change != Unchanged {
				s[e.From], s[e.To] = true, true
			}
		}
		seeds[ci] = s
	}
	return seeds
}

// Markdown returns the diff as a GitHub Markdown table, one row per change,
// or one sentence when nothing changed.
func (d GraphDiff) Markdown() string {
	var b strings.Builder
	if d.Empty() {
		b.WriteString("No change to the upgrade graph of " + markdown.Code(d.Package) + ".\n")
		return b.String()
	}
	b.WriteString("| change | channel | what |\n| --- | --- | --- |\n")
	row := func(change, channel, what string) {
		b.WriteString("| " + change + " | " + markdown.Text(channel) + " | " + what + " |\n")
	}
	for _, c := range d.ChannelsAdded {
		row("channel added", c, "")
	}
	for _, c := range d.ChannelsRemoved {
		row("channel removed", c, "")
	}
	for _, h := range d.HeadsMoved {
		row("head moved", h.Channel, headText(h.Old)+" → "+headText(h.New))
	}
	for _, e := range d.EntriesAdded {
		row("entry added", e.Channel, entryText(e))
	}
	for _, e := range d.EntriesRemoved {
		row("entry removed", e.Channel, entryText(e))
	}
	for _, e := range d.EdgesAdded {
		row("edge added", e.Channel, edgeText(e))
	}
	for _, e := range d.EdgesRemoved {
		row("edge removed", e.Channel, edgeText(e))
	}
	for _, dep := range d.Deprecated {
		channel, what := "", string(dep.Scope)+" "+markdown.Code(dep.Name)+": "+markdown.Text(dep.Message)
		if dep.Scope == ScopeChannel {
			channel, what = dep.Name, markdown.Text(dep.Message)
		}
		row("deprecated", channel, what)
	}
	return b.String()
}

func headText(name string) string {
	if name == "" {
		return "(no single head)"
	}
	return markdown.Code(name)
}

func entryText(e EntryRef) string {
	if e.Version == "" {
		return markdown.Code(e.Bundle)
	}
	return markdown.Code(e.Bundle) + " (" + markdown.Text(e.Version) + ")"
}

func edgeText(e EdgeRef) string {
	return markdown.Code(e.From) + " → " + markdown.Code(e.To) + " (" + e.Kind.String() + ")"
}
