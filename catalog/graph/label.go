package graph

import (
	"strconv"
	"strings"
)

// title is the title both formats show.
func (g Graph) title() string {
	t := g.Package + " upgrade graph"
	if g.Deprecated != "" {
		t += " (package deprecated: " + g.Deprecated + ")"
	}
	var cut []string
	if g.FoldedEdges > 0 {
		cut = append(cut, strconv.Itoa(g.FoldedEdges)+" skipRange edges folded into labels")
	}
	if g.OmittedChannels > 0 {
		cut = append(cut, strconv.Itoa(g.OmittedChannels)+" channels left out")
	}
	if len(cut) > 0 {
		t += " (drawn in part: " + strings.Join(cut, ", ") + ")"
	}
	return t
}

func (ch Channel) title() string {
	var notes []string
	switch ch.Change {
	case Added:
		notes = append(notes, "added")
	case Removed:
		notes = append(notes, "removed")
	}
	if ch.Default {
		notes = append(notes, "default")
	}
	if ch.Deprecated != "" {
		notes = append(notes, "deprecated: "+ch.Deprecated)
	}
	if ch.HeadErr != "" {
		notes = append(notes, "no single head")
	}
	if len(notes) == 0 {
		return "channel " + ch.Name
	}
	return "channel " + ch.Name + " (" + strings.Join(notes, "; ") + ")"
}

// lines are the lines of a node's label.
func (n Node) lines() []string {
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
	if n.Installed {
		lines = append(lines, "installed")
	}
	if n.Deprecated != "" {
		lines = append(lines, "deprecated")
	}
	switch n.Change {
	case Added:
		lines = append(lines, "new")
	case Removed:
		lines = append(lines, "removed")
	}
	if n.FoldedSkipRange > 0 {
		lines = append(lines, "skipRange covers "+strconv.Itoa(n.FoldedSkipRange)+" more")
	}
	return lines
}

// moreNote is the label of the note standing for omitted nodes.
func moreNote(n int) string {
	return "… " + strconv.Itoa(n) + " more"
}
