package planner

import (
	"fmt"
	"strings"

	"github.com/olmops/olmops/plan"
)

// automaticMessage is the message of a cluster's Automatic commit: a
// subject naming what changed (the first plan, and how many more), then one
// line per plan, so `git log --oneline` reads as a changelog.
func automaticMessage(cluster string, prs []*plan.Proposal) string {
	var plans []plan.Plan
	for _, pr := range prs {
		plans = append(plans, pr.Plans...)
	}
	subject := "olmops: plan " + cluster
	if len(plans) > 0 {
		subject += ": " + plans[0].Summary()
	}
	if len(plans) > 1 {
		subject += fmt.Sprintf(" (and %d more)", len(plans)-1)
	}
	return subject + "\n\n" + summaries(plans)
}

// summaries is one "- <summary>" line per plan.
func summaries(plans []plan.Plan) string {
	var b strings.Builder
	for i := range plans {
		b.WriteString("- " + plans[i].Summary() + "\n")
	}
	return b.String()
}
