package plan

import (
	"fmt"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/resolver"
)

// Need is a subscription of the same namespace whose resolved bundle a
// plan's bundle requires.
type Need struct {
	// Name is the providing subscription.
	Name string
	// What the provider gives, in words (see Requirements.From).
	What []string
}

// needs finds, for each subscription of a solution, the other
// subscriptions whose chosen bundles provide what its chosen bundle
// requires. Proposed dependencies are not listed: they already ride with
// the subscription that needs them.
func needs(sol *resolver.Solution) [][]Need {
	out := make([][]Need, len(sol.Subscriptions))
	for i, r := range sol.Subscriptions {
		if r.Bundle == nil {
			continue
		}
		req := Requires(r.Bundle)
		if req.Empty() {
			continue
		}
		for j, p := range sol.Subscriptions {
			if i == j || p.Bundle == nil {
				continue
			}
			if what := req.From(p.Bundle); len(what) > 0 {
				out[i] = append(out[i], Need{Name: p.Name, What: what})
			}
		}
	}
	return out
}

// approveTogether applies OLM's rule that a namespace resolves into one
// InstallPlan, approved as one, to the namespace's plans: a changed plan
// that needs a subscription whose change waits for approval (in a Manual
// proposal) rides in that proposal, with its own dependencies, so that
// merging approves both and neither reaches the target branch alone.
// Plans that need nothing pending keep their own approval: unlike OLM
// classic, an independent Automatic subscription is not held by a Manual
// neighbour (docs/resolver-semantics.md says why).
func approveTogether(plans []Plan) {
	for merged := true; merged; {
		merged = false
		for i := range plans {
			d := &plans[i]
			if d.State == UpToDate {
				continue
			}
			for _, n := range d.Needs {
				p := planNamed(plans, n.Name)
				if p == nil || p.State == UpToDate || p.Group == d.Group || !manual(plans, p.Group) {
					continue
				}
				d.Waits = append(d.Waits, fmt.Sprintf("%s waits with %s: requires %s's %s", d.Name, n.Name, n.Name, strings.Join(n.What, ", ")))
				from := d.Group
				for k := range plans {
					if plans[k].Group == from {
						plans[k].Group = p.Group
					}
				}
				merged = true
			}
		}
	}
}

// planNamed returns the plan of the namespace named name.
func planNamed(plans []Plan, name string) *Plan {
	for i := range plans {
		if plans[i].Name == name {
			return &plans[i]
		}
	}
	return nil
}

// manual reports a group whose proposal waits for approval: its leading
// plan (the one the group is named after) is Manual.
func manual(plans []Plan, group string) bool {
	lead := planNamed(plans, group)
	return lead != nil && lead.File != nil && lead.File.Spec.Approval == v1alpha1.ApprovalManual
}
