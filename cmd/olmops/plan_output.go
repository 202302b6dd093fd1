package main

import (
	"fmt"
	"io"

	"github.com/olmops/olmops/planner"
)

func writePlanReport(w io.Writer, format string, r *planner.Report) error {
	if structured(format) {
		return encode(w, format, r)
	}
	for _, c := range r.Clusters {
		if c.Err != nil {
			fmt.Fprintf(w, "%s: not planned, nothing written (see the errors below)\n", c.Name)
			continue
		}
		changed := 0
		for _, p := range c.Plans {
			if p.Action != planner.ActionNone {
				changed++
			}
		}
		fmt.Fprintf(w, "%s: %d plans, %d changed\n", c.Name, len(c.Plans), changed)
		for _, p := range c.Plans {
			if p.Action == planner.ActionNone {
				continue
			}
			fmt.Fprintf(w, "  %s/%s: %s (%s)\n", p.Namespace, p.Name, planLine(p), p.State)
			if p.Note != "" {
				fmt.Fprintf(w, "    %s\n", p.Note)
			}
		}
		for _, h := range c.Holds {
			fmt.Fprintf(w, "  %s/%s: %s stays: %s\n", h.Namespace, h.Name, h.Package, h.Message)
		}
		for _, f := range c.Findings {
			fmt.Fprintf(w, "  finding: %s: %s\n", f.Bundle, f.Message)
		}
	}
	return nil
}

func planLine(p planner.PlanReport) string {
	switch p.Action {
	case planner.ActionCommitted:
		return fmt.Sprintf("%s, committed %s", p.Title, short(p.Commit))
	case planner.ActionProposed:
		where := "branch " + p.Branch
		if p.Proposal != nil && p.Proposal.URL != "" {
			where = p.Proposal.URL
		}
		return fmt.Sprintf("%s, proposed on %s", p.Title, where)
	case planner.ActionRejected:
		return p.Title + ", rejected before: not proposed again"
	case planner.ActionAwaiting:
		return p.Title + ", awaiting approval"
	case planner.ActionHeld:
		return p.Title + ", held: its proposal branch has someone else's commits"
	case planner.ActionStale:
		return p.Title + ", the committed plan is stale"
	}
	return p.Title
}

func short(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
