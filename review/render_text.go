package review

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olmops/olmops/catalog/graph"
)

// WriteText writes the report for a terminal or a CI log.
func WriteText(w io.Writer, r *Report) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "olmops review: base %s → head %s\n%s\n", commitName(r.Base), commitName(r.Head), r.Summary())
	if len(r.Problems) > 0 {
		b.WriteString("\nProblems:\n")
		for _, p := range r.Problems {
			fmt.Fprintf(b, "  %s: %s: %s: %s\n", statusText(p.Status), p.Pos, problemTitle(p), p.Message)
		}
	}
	if len(r.Packages) > 0 {
		b.WriteString("\nPackages:\n")
		for _, pc := range r.Packages {
			fmt.Fprintf(b, "  %s/%s (%s): %s\n", pc.Catalog, pc.Package, pc.Change, diffSummary(pc.Diff))
		}
	}
	if len(r.Impact)+r.Unchanged > 0 {
		b.WriteString("\nImpact:\n")
		for _, im := range r.Impact {
			fmt.Fprintf(b, "  %s\n", im.Line())
			if im.Head != nil && im.Head.Error != "" {
				fmt.Fprintf(b, "    %s\n", indent(resolutionError(im.Head), "    "))
			}
			for _, wn := range im.Warnings {
				fmt.Fprintf(b, "    warning: %s\n", wn)
			}
		}
		fmt.Fprintf(b, "  %s\n", unchangedText(r.Unchanged, len(r.Impact) > 0))
	}
	if len(r.Waves) > 0 {
		b.WriteString("\nPromotion:\n")
		for _, w := range r.Waves {
			fmt.Fprintf(b, "  %s\n", w.Text())
		}
	}
	if pc := r.Plans; pc != nil {
		fmt.Fprintf(b, "\nPlans (checked: %s):\n", listOr(pc.Clusters, "no cluster"))
		for _, sp := range pc.Stale {
			fmt.Fprintf(b, "  %s: %s\n", sp.key(), sp.message())
		}
		for _, ce := range pc.Errors {
			fmt.Fprintf(b, "  cluster %s cannot be planned (%s): %s\n", ce.Cluster, statusText(ce.Status), indent(ce.Message, "    "))
		}
		if len(pc.Stale)+len(pc.Errors) == 0 {
			b.WriteString("  every plan is current\n")
		}
	}
	if len(r.Granted) > 0 {
		b.WriteString("\nMore power, committed by this change:\n")
		for _, g := range r.Granted {
			fmt.Fprintf(b, "  %s: %s\n", g.key(), g.message())
		}
	}
	if len(r.Notes) > 0 {
		b.WriteString("\nNotes:\n")
		for _, n := range r.Notes {
			fmt.Fprintf(b, "  %s\n", n)
		}
	}
	return b.Flush()
}

// WriteJSON writes the report, its findings and its summary as one JSON
// object.
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	cp := *r
	// Empty lists as [], so consumers need not tell null from none.
	cp.Problems = nonNil(cp.Problems)
	cp.Packages = nonNil(cp.Packages)
	cp.Impact = nonNil(cp.Impact)
	return enc.Encode(struct {
		Summary  string    `json:"summary"`
		Findings []Finding `json:"findings"`
		*Report
	}{r.Summary(), nonNil(r.Findings()), &cp})
}

// WriteGitHub writes the findings as workflow commands within lim, then
// the report as text for the log.
func WriteGitHub(w io.Writer, r *Report, lim Limits) error {
	b := bufio.NewWriter(w)
	for _, a := range Annotations(r.Findings(), lim) {
		b.WriteString(a + "\n")
	}
	if err := b.Flush(); err != nil {
		return err
	}
	return WriteText(w, r)
}

func commitName(c Commit) string {
	h := c.Hash
	if len(h) > 12 {
		h = h[:12]
	}
	switch {
	case c.Rev == "" || c.Rev == c.Hash:
		return h
	case h == "":
		return c.Rev
	}
	return c.Rev + " (" + h + ")"
}

func statusText(s Status) string {
	if s == Present {
		return "already present"
	}
	return string(s)
}

func indent(s, prefix string) string { return strings.ReplaceAll(s, "\n", "\n"+prefix) }

func listOr(items []string, none string) string {
	if len(items) == 0 {
		return none
	}
	return strings.Join(items, ", ")
}

// diffSummary says in one line what a graph diff holds.
func diffSummary(d graph.GraphDiff) string {
	if d.Empty() {
		return "no change to the upgrade graph"
	}
	var parts []string
	for _, h := range d.HeadsMoved {
		parts = append(parts, fmt.Sprintf("head of %s moved %s → %s", h.Channel, orNone(h.Old), orNone(h.New)))
	}
	count := func(n int, one, many string) {
		switch {
		case n == 1:
			parts = append(parts, one)
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %s", n, many))
		}
	}
	count(len(d.ChannelsAdded), "1 channel added", "channels added")
	count(len(d.ChannelsRemoved), "1 channel removed", "channels removed")
	count(len(d.EntriesAdded), "1 entry added", "entries added")
	count(len(d.EntriesRemoved), "1 entry removed", "entries removed")
	count(len(d.EdgesAdded), "1 edge added", "edges added")
	count(len(d.EdgesRemoved), "1 edge removed", "edges removed")
	for _, dep := range d.Deprecated {
		parts = append(parts, fmt.Sprintf("%s %s deprecated", dep.Scope, dep.Name))
	}
	return strings.Join(parts, "; ")
}

func orNone(s string) string {
	if s == "" {
		return "(no single head)"
	}
	return s
}

// unchangedText counts the subscriptions left out of the impact, which
// are the others when some are listed.
func unchangedText(n int, others bool) string {
	switch {
	case n == 1 && others:
		return "1 other subscription resolves as before"
	case n == 1:
		return "The one subscription resolves as before"
	case others:
		return fmt.Sprintf("%d other subscriptions resolve as before", n)
	}
	return fmt.Sprintf("All %d subscriptions resolve as before", n)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
