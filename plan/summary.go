package plan

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
)

// maxSummaryObjects bounds the objects one summary line names; the
// proposal body and the diff have the rest.
const maxSummaryObjects = 4

// Summary says in one line what the plan changes, for commit messages:
// "etcd-system/etcd: 0.9.2 → 0.9.4 (2 hops)", "etcd-system/acme-db:
// manifests changed: Deployment/acme-db image, ClusterRole/acme-db +1
// rule", or, when a Refresh leaves the manifests as they were, which
// recorded input moved.
func (p *Plan) Summary() string {
	spec := p.File.Spec
	s := p.Key.String() + ": "
	pkg := ""
	if spec.Package != p.Name {
		pkg = spec.Package + " "
	}
	switch p.State {
	case Install:
		s += "install " + spec.Package + " " + version(spec.To)
	case Remove:
		s += "remove " + spec.Package + " " + version(spec.To)
	case Refresh:
		s += p.refreshReason()
	case Upgrade:
		from := "?"
		if spec.From != nil {
			from = version(*spec.From)
		}
		s += pkg + from + " → " + version(spec.To)
		if n := len(spec.Path); n > 1 {
			s += fmt.Sprintf(" (%d hops)", n)
		}
	default:
		s += "up to date"
	}
	if spec.Subscription.Kind == kindDependency && len(spec.Subscription.RequiredBy) > 0 {
		s += " (needed by " + strings.Join(spec.Subscription.RequiredBy, ", ") + ")"
	}
	return oneLine(s)
}

// refreshReason says why a plan that keeps its bundle changed: its
// manifests, or else the recorded facts that differ from the committed
// plan's.
func (p *Plan) refreshReason() string {
	if !p.Changes.Empty() {
		return "manifests changed: " + p.Changes.Summary(maxSummaryObjects)
	}
	if p.Committed == nil {
		return "refreshed"
	}
	for name, data := range p.Files {
		if name != v1alpha1.InstallPlanFile && !bytes.Equal(data, p.Committed.Files[name]) {
			return "manifests of earlier hops changed"
		}
	}
	was, now := p.Committed.Plan.Spec, p.File.Spec
	var why []string
	add := func(changed bool, what string) {
		if changed {
			why = append(why, what)
		}
	}
	add(was.To.Image != now.To.Image, "bundle image "+now.To.Image)
	add(was.Catalog.Digest != now.Catalog.Digest, "catalog entry of the bundles on the path")
	add(edges(was) != edges(now), "path")
	add(was.Approval != now.Approval, "approval "+string(now.Approval))
	add(fmt.Sprint(was.Dependencies) != fmt.Sprint(now.Dependencies), "dependencies")
	add(fmt.Sprint(was.Warnings) != fmt.Sprint(now.Warnings), "warnings")
	if len(why) == 0 {
		add(was.InputsDigest != now.InputsDigest, "inputs (subscription, overlay or cluster facts)")
	}
	if len(why) == 0 {
		return "plan file rewritten, same manifests"
	}
	return "same manifests; changed: " + strings.Join(why, ", ")
}

func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return -1
		}
		return r
	}, s)
}

// edges is the path without its images, which the bundle image reason
// already covers.
func edges(spec v1alpha1.InstallPlanSpec) string {
	var b strings.Builder
	for _, h := range spec.Path {
		fmt.Fprintf(&b, "%s %s %s %s;", h.Name, h.Channel, h.Edge, h.SkipRange)
	}
	return b.String()
}
