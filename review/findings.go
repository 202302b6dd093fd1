package review

import (
	"fmt"
	"strings"
)

// Finding is one thing to tell the reviewer, at a file and line.
type Finding struct {
	Severity Severity `json:"severity"`
	Pos      Pos      `json:"pos"`
	Title    string   `json:"title"`
	Message  string   `json:"message"`
}

// Findings lists what the report says at a file and line, the most
// important first: errors (new problems, subscriptions that stop
// resolving, plans the pull request carries stale, clusters that cannot
// be planned), then warnings (new deprecations, plans the planner will
// redo), then notices (what moves, what was broken already).
func (r *Report) Findings() []Finding {
	var errs, warns, notes []Finding
	for _, p := range r.Problems {
		switch p.Status {
		case New:
			if p.Warning {
				warns = append(warns, Finding{Warning, p.Pos, problemTitle(p), p.Message})
				continue
			}
			errs = append(errs, Finding{Error, p.Pos, problemTitle(p), p.Message})
		case Present:
			notes = append(notes, Finding{Notice, p.Pos, "already present: " + problemTitle(p), p.Message})
		}
	}
	var moves, stillBroken []Finding
	for _, im := range r.Impact {
		switch {
		case im.Breaks():
			errs = append(errs, Finding{Error, im.Pos, im.Key() + " does not resolve", resolutionError(im.Head)})
		case im.StillBroken():
			stillBroken = append(stillBroken, Finding{Notice, im.Pos, "already present: " + im.Key() + " does not resolve", resolutionError(im.Head)})
		default:
			moves = append(moves, Finding{Notice, im.Pos, im.Key(), im.Line()})
		}
		for _, w := range im.Warnings {
			warns = append(warns, Finding{Warning, im.Pos, im.Key() + ": deprecated", w})
		}
	}
	for _, g := range r.Granted {
		f := Finding{Warning, g.Pos, "plan " + g.key() + " grants more power", g.message()}
		if g.Denied {
			f.Severity = Error
			errs = append(errs, f)
			continue
		}
		warns = append(warns, f)
	}
	if pc := r.Plans; pc != nil {
		for _, sp := range pc.Stale {
			switch {
			case sp.Status == Present:
				stillBroken = append(stillBroken, Finding{Notice, sp.Pos, "already present: stale plan " + sp.key(), sp.message()})
			case sp.Touched:
				errs = append(errs, Finding{Error, sp.Pos, "stale plan " + sp.key(), sp.message()})
			default:
				warns = append(warns, Finding{Warning, sp.Pos, "stale plan " + sp.key(), sp.message()})
			}
		}
		for _, ce := range pc.Errors {
			f := Finding{Error, firstPos(ce.Message), "cluster " + ce.Cluster + " cannot be planned", ce.Message}
			if ce.Status == Present {
				f.Severity, f.Title = Notice, "already present: "+f.Title
				stillBroken = append(stillBroken, f)
				continue
			}
			errs = append(errs, f)
		}
	}
	notes = append(append(moves, stillBroken...), notes...)
	return append(append(errs, warns...), notes...)
}

func problemTitle(p Problem) string {
	t := p.Source
	if p.Package != "" {
		t += ", package " + p.Package
	}
	return t
}

func resolutionError(r *Resolved) string {
	if len(r.Explanation) == 0 {
		return r.Error
	}
	return r.Error + ":\n- " + strings.Join(r.Explanation, "\n- ")
}

func (sp StalePlan) key() string { return sp.Cluster + "/" + sp.Namespace + "/" + sp.Name }

func (sp StalePlan) message() string {
	var m string
	switch {
	case sp.Status == Present:
		m = fmt.Sprintf("%s: the committed plan was stale or missing at the base already (%s); olmops plan updates it", sp.Title, sp.State)
	case sp.Touched:
		m = fmt.Sprintf("%s: this pull request changes the plan, but it does not match its inputs (%s); run olmops plan and commit the result", sp.Title, sp.State)
	default:
		m = fmt.Sprintf("%s: the committed plan is stale or missing (%s); olmops plan updates it after the merge", sp.Title, sp.State)
	}
	return m + sp.escalations()
}

// escalations words what the change grants, so a reviewer sees it on the
// plan's line, and whether the policy holds it for approval.
func (sp StalePlan) escalations() string {
	if len(sp.Escalations) == 0 {
		return ""
	}
	s := "; it grants more power: " + strings.Join(sp.Escalations, "; ")
	if sp.RiskApproval {
		s += " (olmops.yaml's escalation policy proposes it for approval although the subscription is Automatic)"
	}
	return s
}

// Counts are the findings by severity, and how many of the errors and
// warnings are new.
type Counts struct {
	Errors, Warnings, Notices int
}

// Count counts the report's findings by severity.
func (r *Report) Count() Counts {
	var c Counts
	for _, f := range r.Findings() {
		switch f.Severity {
		case Error:
			c.Errors++
		case Warning:
			c.Warnings++
		default:
			c.Notices++
		}
	}
	return c
}

// Failed tells whether the review fails: on any error, and on any warning
// with failOnWarnings. Everything already present at the base is a notice
// and never fails it.
func (r *Report) Failed(failOnWarnings bool) bool {
	c := r.Count()
	return c.Errors > 0 || failOnWarnings && c.Warnings > 0
}

// Summary is the review in one line, for a commit status or a log.
func (r *Report) Summary() string {
	c := r.Count()
	var parts []string
	switch {
	case c.Errors+c.Warnings == 0:
		parts = append(parts, "no new problems")
	default:
		parts = append(parts, plural(c.Errors, "error")+", "+plural(c.Warnings, "warning"))
	}
	moving, clusters := 0, map[string]bool{}
	for _, im := range r.Impact {
		if im.Action != ActionNone && im.Action != ActionBlocked {
			moving++
			clusters[im.Cluster] = true
		}
	}
	parts = append(parts, fmt.Sprintf("%s to plan on %s", plural(moving, "subscription"), plural(len(clusters), "cluster")))
	parts = append(parts, plural(len(r.Packages), "package")+" changed")
	return strings.Join(parts, " · ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}
