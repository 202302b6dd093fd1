package review

import (
	"fmt"
	"strconv"
	"strings"
)

// Annotation is a GitHub Actions workflow command that annotates a file:
// ::error file=F,line=L,title=T::message (or ::warning, ::notice).
type Annotation struct {
	Severity Severity
	// File and Line locate it; both optional.
	File  string
	Line  int
	Title string
	// Message may span lines.
	Message string
}

// String writes the workflow command, escaped the way the Actions
// toolkit escapes: %, CR and LF in the message; those and ':' and ',' in
// property values.
func (a Annotation) String() string {
	var props []string
	if a.File != "" {
		props = append(props, "file="+EscapeProperty(a.File))
	}
	if a.Line > 0 {
		props = append(props, "line="+strconv.Itoa(a.Line))
	}
	if a.Title != "" {
		props = append(props, "title="+EscapeProperty(a.Title))
	}
	cmd := "::" + string(a.Severity)
	if len(props) > 0 {
		cmd += " " + strings.Join(props, ",")
	}
	return cmd + "::" + EscapeData(a.Message)
}

// EscapeData escapes a workflow command's message (the toolkit's
// escapeData).
func EscapeData(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A").Replace(s)
}

// EscapeProperty escapes a workflow command's property value (the
// toolkit's escapeProperty).
func EscapeProperty(s string) string {
	return strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C").Replace(s)
}

// Limits are GitHub's caps on annotations: beyond them it drops the rest
// silently.
type Limits struct {
	// PerType is the most annotations of one severity per step.
	PerType int
	// PerJob is the most annotations of all severities per job.
	PerJob int
}

// GitHubLimits are github.com's caps: 10 annotations of each type per
// step, 50 per job.
var GitHubLimits = Limits{PerType: 10, PerJob: 50}

// Annotations turns findings (most important first) into workflow
// commands within limits. When some are left out, the last command is a
// notice counting them, and it takes one of the notices' places so that
// GitHub shows it.
func Annotations(findings []Finding, lim Limits) []string {
	kept, left := capFindings(findings, lim, 0)
	if len(left) > 0 {
		kept, left = capFindings(findings, lim, 1)
	}
	out := make([]string, 0, len(kept)+1)
	for _, f := range kept {
		out = append(out, Annotation{Severity: f.Severity, File: f.Pos.File, Line: f.Pos.Line, Title: f.Title, Message: f.Message}.String())
	}
	if len(left) > 0 {
		out = append(out, Annotation{Severity: Notice, Title: "olmops review", Message: leftOut(left, lim)}.String())
	}
	return out
}

// capFindings keeps findings in order within limits, with reserve places
// held back for the summary notice.
func capFindings(findings []Finding, lim Limits, reserve int) (kept []Finding, left map[Severity]int) {
	left = map[Severity]int{}
	per := map[Severity]int{}
	for _, f := range findings {
		limit := lim.PerType
		if f.Severity == Notice {
			limit -= reserve
		}
		if per[f.Severity] >= limit || len(kept) >= lim.PerJob-reserve {
			left[f.Severity]++
			continue
		}
		per[f.Severity]++
		kept = append(kept, f)
	}
	return kept, left
}

func leftOut(left map[Severity]int, lim Limits) string {
	var parts []string
	total := 0
	for _, s := range []Severity{Error, Warning, Notice} {
		if n := left[s]; n > 0 {
			parts = append(parts, plural(n, string(s)))
			total += n
		}
	}
	return fmt.Sprintf("%d more annotations left out (%s): GitHub shows at most %d of each type per step and %d per job; the job summary and the log list everything",
		total, strings.Join(parts, ", "), lim.PerType, lim.PerJob)
}
