package commitstatus

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/olmops/olmops/gitsource"
)

// Prefix starts every context olmops posts.
const Prefix = "olmops/"

// UpgradeableContext is posted on an upgrade proposal's head: failure while
// the installed operator says Upgradeable=False, so branch protection can
// block the merge.
const UpgradeableContext = Prefix + "upgradeable"

// Context names the status of one subscription on one cluster.
func Context(cluster, namespace, subscription string) string {
	return Prefix + cluster + "/" + namespace + "/" + subscription
}

// ClusterContext names a cluster-wide status, such as an operator that
// keeps the cluster from its next OpenShift minor version.
func ClusterContext(cluster string) string { return Prefix + cluster }

// HeadContext names the status the reconciler posts on a head it refused
// to apply (its signature does not verify, its plans do not load), so that
// the commit itself says it is not on the cluster.
func HeadContext(cluster string) string { return Prefix + cluster + "/head" }

// Refused is the description of a refused head: "not applied: " the
// condition's reason and message, cut to gitsource.MaxStatusDescription.
func Refused(reason, message string) string {
	return gitsource.TruncateDescription("not applied: " + reason + ": " + message)
}

// Phase is where an operator stands on a cluster.
type Phase string

// The phases, in the order an apply goes through them.
const (
	// Applying: a hop of the plan is being applied or awaited.
	Applying Phase = "applying"
	// Held: the installed operator said Upgradeable=False, so the plan
	// waits.
	Held Phase = "held"
	// Installed: the plan's bundle is installed.
	Installed Phase = "installed"
	// Failed: applying the plan failed; Reason says why.
	Failed Phase = "failed"
)

// Report is what a status says about one subscription.
type Report struct {
	Phase Phase
	// Bundle is the installed bundle (Installed, Held) or the bundle being
	// applied or that failed (Applying, Failed).
	Bundle string
	// Hop and Hops count the path's steps while Applying; zero otherwise.
	Hop, Hops int
	// Healthy is false when an Installed operator's workloads are not
	// available; Reason then says which.
	Healthy bool
	// NotUpgradeable is the message of the operator's Upgradeable=False
	// condition; "" when it is upgradeable.
	NotUpgradeable string
	// Reason explains Failed, Held by something other than Upgradeable,
	// or not Healthy.
	Reason string
}

// State is the commit status state a report is posted with.
func (r Report) State() gitsource.StatusState {
	switch {
	case r.Phase == Failed, r.Phase == Installed && !r.Healthy:
		return gitsource.StatusFailure
	case r.Phase == Installed:
		return gitsource.StatusSuccess
	}
	return gitsource.StatusPending
}

const (
	sep         = " · "
	notUpgPfx   = "Upgradeable=False: "
	healthyWord = "healthy"
	unhealthy   = "unhealthy: "
)

// Description writes the report in the grammar of docs/statuses.md, cut to
// gitsource.MaxStatusDescription characters.
func (r Report) Description() string {
	var s string
	switch r.Phase {
	case Applying:
		s = "applying " + r.Bundle
		if r.Hops > 0 {
			s += fmt.Sprintf(" (hop %d/%d)", r.Hop, r.Hops)
		}
	case Held:
		s = "held at " + r.Bundle
		if r.NotUpgradeable == "" && r.Reason != "" {
			s += sep + r.Reason
		}
	case Installed:
		s = r.Bundle + " installed" + sep
		if r.Healthy {
			s += healthyWord
		} else {
			s += unhealthy + r.Reason
		}
	case Failed:
		s = r.Bundle + " failed: " + r.Reason
	default:
		s = string(r.Phase)
	}
	if r.NotUpgradeable != "" {
		s += sep + notUpgPfx + r.NotUpgradeable
	}
	return gitsource.TruncateDescription(s)
}

// Parse reads a description written by Description. It accepts cut
// descriptions: a message cut short is returned as far as it goes.
func Parse(desc string) (Report, error) {
	var r Report
	rest := desc
	if i := strings.Index(rest, sep+notUpgPfx); i >= 0 {
		r.NotUpgradeable = rest[i+len(sep+notUpgPfx):]
		rest = rest[:i]
	}
	switch {
	case strings.HasPrefix(rest, "applying "):
		r.Phase = Applying
		r.Bundle = strings.TrimPrefix(rest, "applying ")
		if i := strings.Index(r.Bundle, " (hop "); i >= 0 {
			hops := strings.TrimSuffix(r.Bundle[i+len(" (hop "):], ")")
			r.Bundle = r.Bundle[:i]
			a, b, _ := strings.Cut(hops, "/")
			var err1, err2 error
			r.Hop, err1 = strconv.Atoi(a)
			r.Hops, err2 = strconv.Atoi(b)
			if err1 != nil || err2 != nil {
				return Report{}, fmt.Errorf("commit status %q: hop count %q is not n/m", desc, hops)
			}
		}
	case strings.HasPrefix(rest, "held at "):
		r.Phase = Held
		r.Bundle, r.Reason, _ = strings.Cut(strings.TrimPrefix(rest, "held at "), sep)
	case strings.Contains(rest, " installed"+sep):
		r.Phase = Installed
		var health string
		r.Bundle, health, _ = strings.Cut(rest, " installed"+sep)
		r.Healthy = health == healthyWord
		if !r.Healthy {
			r.Reason = strings.TrimPrefix(health, unhealthy)
		}
	case strings.Contains(rest, " failed: "):
		r.Phase = Failed
		r.Bundle, r.Reason, _ = strings.Cut(rest, " failed: ")
	default:
		return Report{}, fmt.Errorf("commit status %q is not in the olmops grammar (see docs/statuses.md)", desc)
	}
	if r.Bundle == "" || strings.ContainsAny(r.Bundle, " ") {
		return Report{}, fmt.Errorf("commit status %q: no bundle name", desc)
	}
	return r, nil
}
