package plan

import (
	"fmt"
	"strings"
	"time"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/semver"
)

// Health is what a followed cluster last said about a subscription.
type Health string

// Healths, as the commit status states read (docs/statuses.md).
const (
	// Healthy: success, the bundle installed and its workloads available.
	Healthy Health = "healthy"
	// Pending: a hop applying or awaited, or held.
	Pending Health = "pending"
	// Failing: failure or error, installed but unhealthy or refused.
	Failing Health = "failing"
)

// Evidence is a followed cluster's latest report on one subscription, as
// its controller posted it on the commit that carried the plan.
type Evidence struct {
	// Cluster is the followed cluster.
	Cluster string
	// Key is the subscription on that cluster.
	Key Key
	// Package is the subscription's package.
	Package string
	// Bundle is the bundle the report names.
	Bundle string
	// Health is the report's state.
	Health Health
	// Description is the status as posted, quoted in messages.
	Description string
	// Since is when the forge recorded the report: it stands unchanged
	// since, for a report is posted only when it changes. Zero when the
	// forge does not say.
	Since time.Time
}

// Promotion is what a follower's upgrades wait for: the reports of the
// clusters it follows, read at Now.
type Promotion struct {
	// After are the followed clusters.
	After []string
	// Soak is how long each must have reported the bundle healthy.
	Soak time.Duration
	// Now is when the evidence was read.
	Now time.Time
	// Evidence of every followed cluster, for every package it reports.
	Evidence []Evidence
	// Unread, when set, says why the evidence could not be read: every
	// move then waits, saying so, for no answer is not a yes.
	Unread string
}

// Hold is a subscription that promotion keeps where it is.
type Hold struct {
	Key
	// Package of the subscription.
	Package string `json:"package"`
	// Target is the bundle the catalogs would move it to.
	Target string `json:"target"`
	// Stopped: a followed cluster reports a failure, which stops the wave.
	Stopped bool `json:"stopped,omitempty"`
	// Message says why, for people: "waiting for promotion: staging has …".
	Message string `json:"message"`
	// Until is when the hold ends by itself, when only soaks hold it: the
	// end of the last of them. Zero when it waits for a report to change.
	Until time.Time `json:"until,omitzero"`
}

// decision is how far promotion lets one subscription go.
type decision struct {
	// hold keeps it where it is; message and stopped say why.
	hold    bool
	stopped bool
	message string
	// atMost caps it at what the followed clusters have soaked; nil when
	// the target itself has been.
	atMost       *semver.Version
	atMostBundle string
	// evidence is one line per followed cluster for the proposal.
	evidence []string
	// soakEnd is the latest end of the soaks it waits for, and soaks how
	// many of its waits are soaks.
	soakEnd time.Time
	soaks   int
	// until is when the hold ends by itself: every wait is a soak. Zero
	// when it depends on what a followed cluster reports next.
	until time.Time
}

// decide says how far a subscription of pkg may move to target, the
// bundle the catalogs would move it to: every followed cluster must report
// a bundle of pkg installed and healthy for the soak time, and the target
// may be no newer than the oldest of those. A failure anywhere stops it.
func (p *Promotion) decide(pkg *catalog.Package, target *catalog.Bundle) decision {
	var d decision
	if p.Unread != "" {
		d.hold, d.message = true, "waiting for promotion: "+p.Unread
		return d
	}
	var waits, stops []string
	for _, c := range p.After {
		found := false
		for _, e := range p.Evidence {
			if e.Cluster != c || e.Package != pkg.Name {
				continue
			}
			found = true
			wait, stop := p.judge(e, pkg, target, &d)
			if wait != "" {
				waits = append(waits, wait)
			}
			if stop != "" {
				stops = append(stops, stop)
			}
		}
		if !found {
			waits = append(waits, fmt.Sprintf("%s reports nothing of %s yet", c, pkg.Name))
		}
	}
	switch {
	case len(stops) > 0:
		d.hold, d.stopped, d.message = true, true, "promotion stopped: "+strings.Join(stops, "; ")
	case len(waits) > 0:
		d.hold, d.message = true, "waiting for promotion: "+strings.Join(waits, "; ")
		if d.soaks == len(waits) {
			d.until = d.soakEnd
		}
	case d.atMost != nil:
		d.message = fmt.Sprintf("promoted at most to %s, what the followed clusters have soaked (the catalogs offer %s)", d.atMostBundle, target.Name)
	}
	return d
}

// judge weighs one report: it returns why to wait or stop, or records the
// report as evidence and lowers d's cap to its bundle.
func (p *Promotion) judge(e Evidence, pkg *catalog.Package, target *catalog.Bundle, d *decision) (wait, stop string) {
	switch e.Health {
	case Failing:
		return "", fmt.Sprintf("%s: failed: %s", e.Cluster, e.Description)
	case Healthy:
	default:
		return fmt.Sprintf("%s: %s", e.Cluster, e.Description), ""
	}
	if e.Since.IsZero() && p.Soak > 0 {
		return fmt.Sprintf("%s has %s healthy, since when unknown (soak %s)", e.Cluster, e.Bundle, duration(p.Soak)), ""
	}
	if until := e.Since.Add(p.Soak); p.Now.Before(until) {
		d.soaks++
		if until.After(d.soakEnd) {
			d.soakEnd = until
		}
		return fmt.Sprintf("%s has %s healthy since %s (soak %s, until %s)", e.Cluster, e.Bundle, stamp(e.Since), duration(p.Soak), stamp(until)), ""
	}
	b := pkg.Bundles[e.Bundle]
	if b == nil || b.Version == nil {
		return fmt.Sprintf("%s runs %s, which the catalog does not list with a version", e.Cluster, e.Bundle), ""
	}
	line := fmt.Sprintf("%s: %s healthy since %s", e.Cluster, e.Bundle, stamp(e.Since))
	if p.Soak > 0 {
		line += fmt.Sprintf(" (soak %s)", duration(p.Soak))
	}
	d.evidence = append(d.evidence, line)
	if target.Version != nil && !target.Version.GreaterThan(b.Version) {
		return "", ""
	}
	if d.atMost == nil || b.Version.LessThan(d.atMost) {
		d.atMost, d.atMostBundle = b.Version, b.Name
	}
	return "", ""
}

// stamp writes a time for people and logs alike, in UTC.
func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// duration writes "24h" rather than "24h0m0s".
func duration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
