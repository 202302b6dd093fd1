package review

import (
	"bufio"
	"fmt"
	"github.com/olmops/olmops/catalog/markdown"
	"io"
	"strings"
)

// Caps that keep a job summary readable and under GitHub's 1 MiB.
const (
	// maxRows is the most rows of one table.
	maxRows = 100
	// maxGraphs is the most packages drawn; the rest get a table only.
	maxGraphs = 10
)

// WriteMarkdown writes the report as a GitHub job summary: a verdict,
// tables of problems, impact and plans, and each changed package's graph
// diff as a table and a Mermaid drawing.
func WriteMarkdown(w io.Writer, r *Report, failOnWarnings bool) error {
	b := bufio.NewWriter(w)
	verdict := "✅"
	if r.Failed(failOnWarnings) {
		verdict = "❌"
	}
	fmt.Fprintf(b, "## %s olmops review\n\n**%s**\n\nBase %s → head %s.\n\n", verdict, r.Summary(), mdCommit(r.Base), mdCommit(r.Head))
	writeProblems(b, r.Problems)
	writeImpact(b, r)
	if len(r.Waves) > 0 {
		b.WriteString("### Promotion\n\n")
		for _, w := range r.Waves {
			b.WriteString("- " + mdCell(w.Text()) + "\n")
		}
		b.WriteString("\n")
	}
	writePlans(b, r.Plans)
	writeGranted(b, r.Granted)
	writePackages(b, r.Packages)
	if len(r.Notes) > 0 {
		b.WriteString("### Notes\n\n")
		for _, n := range r.Notes {
			b.WriteString("- " + mdCell(n) + "\n")
		}
		b.WriteString("\n")
	}
	return b.Flush()
}

func writeProblems(b *bufio.Writer, ps []Problem) {
	if len(ps) == 0 {
		return
	}
	b.WriteString("### Problems\n\n| | where | in | problem |\n| --- | --- | --- | --- |\n")
	for i, p := range ps {
		if i == maxRows {
			fmt.Fprintf(b, "\n… and %d more problems (see the log).\n", len(ps)-maxRows)
			break
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", statusMark(p.Status), mdCode(p.Pos.String()), mdCell(problemTitle(p)), mdCell(p.Message))
	}
	b.WriteString("\n")
}

func statusMark(s Status) string {
	switch s {
	case New:
		return "❌ new"
	case Present:
		return "⚪ already present"
	}
	return "✅ fixed"
}

func writeImpact(b *bufio.Writer, r *Report) {
	if len(r.Impact)+r.Unchanged == 0 {
		return
	}
	b.WriteString("### Impact\n\n")
	if len(r.Impact) > 0 {
		b.WriteString("| subscription | base | head | approval | after the merge |\n| --- | --- | --- | --- | --- |\n")
	}
	var broken []Impact
	for i, im := range r.Impact {
		if i == maxRows {
			fmt.Fprintf(b, "\n… and %d more subscriptions (see the log).\n", len(r.Impact)-maxRows)
			break
		}
		after := actionText(im)
		if im.Head != nil && im.Head.Error != "" {
			broken = append(broken, im)
			after = "❌ does not resolve"
			if im.StillBroken() {
				after = "⚪ does not resolve (already)"
			}
		}
		for _, w := range im.Warnings {
			after += "<br>⚠️ " + mdCell(w)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", mdCode(im.Key()), mdCell(where(im.Base)), mdCell(where(im.Head)), im.Approval, after)
	}
	if len(r.Impact) > 0 {
		b.WriteString("\n")
	}
	fmt.Fprintf(b, "%s.\n\n", unchangedText(r.Unchanged, len(r.Impact) > 0))
	for _, im := range broken {
		fmt.Fprintf(b, "**%s** (%s): %s\n", mdCode(im.Key()), mdCode(im.Pos.String()), mdCell(im.Head.Error))
		for _, e := range im.Head.Explanation {
			b.WriteString("- " + mdCell(e) + "\n")
		}
		b.WriteString("\n")
	}
}

// actionText is the impact's action as words, without the move.
func actionText(im Impact) string {
	line := im.Change()
	if i := strings.LastIndex(line, ", "); i >= 0 {
		return line[i+2:]
	}
	return line
}

func writePlans(b *bufio.Writer, pc *PlanCheck) {
	if pc == nil {
		return
	}
	fmt.Fprintf(b, "### Plans\n\nChecked like `olmops plan --check`: %s.\n\n", mdCell(listOr(pc.Clusters, "no cluster")))
	if len(pc.Stale)+len(pc.Errors) == 0 {
		b.WriteString("Every plan is current.\n\n")
		return
	}
	b.WriteString("| | plan | |\n| --- | --- | --- |\n")
	for _, sp := range pc.Stale {
		mark := "⚠️ stale"
		switch {
		case sp.Status == Present:
			mark = "⚪ stale already"
		case sp.Touched:
			mark = "❌ stale"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", mark, mdCode(sp.key()), mdCell(sp.message()))
	}
	for _, ce := range pc.Errors {
		fmt.Fprintf(b, "| %s | cluster %s | %s |\n", statusMark(ce.Status), mdCode(ce.Cluster), mdCell(ce.Message))
	}
	b.WriteString("\n")
}

func writeGranted(b *bufio.Writer, gs []GrantedPlan) {
	if len(gs) == 0 {
		return
	}
	b.WriteString("### More power, committed by this change\n\n| | plan | |\n| --- | --- | --- |\n")
	for _, g := range gs {
		mark := "⚠️"
		if g.Denied {
			mark = "❌ denied"
		}
		fmt.Fprintf(b, "| %s | %s | %s |\n", mark, mdCode(g.key()), mdCell(g.message()))
	}
	b.WriteString("\n")
}

func writePackages(b *bufio.Writer, pcs []PackageChange) {
	if len(pcs) == 0 {
		return
	}
	b.WriteString("### Upgrade graphs\n\n")
	for i, pc := range pcs {
		fmt.Fprintf(b, "#### %s / %s (%s)\n\n", mdCode(pc.Catalog), mdCode(pc.Package), pc.Change)
		b.WriteString(pc.Diff.Markdown() + "\n")
		if i < maxGraphs && !pc.Diff.Empty() {
			b.WriteString(pc.Diff.MermaidBlock() + "\n")
		}
	}
	if len(pcs) > maxGraphs {
		fmt.Fprintf(b, "Only the first %d packages are drawn.\n\n", maxGraphs)
	}
}

func mdCommit(c Commit) string {
	h := c.Hash
	if len(h) > 12 {
		h = h[:12]
	}
	switch {
	case c.Rev == "" || c.Rev == c.Hash:
		return mdCode(h)
	case h == "":
		return mdCode(c.Rev)
	}
	return mdCode(c.Rev) + " (" + mdCode(h) + ")"
}

// mdCell is s on one line with pipes escaped, for a table cell.
// mdCell and mdCode make catalog and subscription text inert.
func mdCell(s string) string { return markdown.Text(s) }

func mdCode(s string) string { return markdown.Code(s) }
