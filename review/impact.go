package review

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
)

// impact resolves every selected cluster on both sides and lists the
// subscriptions whose outcome differs.
func (l *loader) impact(ctx context.Context, r *Report, bs, hs *side, only []string) error {
	for _, s := range []struct {
		side *side
		name string
	}{{bs, "base"}, {hs, "head"}} {
		if why := unresolvable(s.side); why != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("impact not computed: %s at the %s", why, s.name))
			return nil
		}
	}
	for _, name := range clusterNames(bs, hs) {
		if len(only) > 0 && !slices.Contains(only, name) {
			continue
		}
		bc, hc := bs.cluster(name), hs.cluster(name)
		if why := brokenAt(bc, hc); why != "" {
			r.Notes = append(r.Notes, fmt.Sprintf("cluster %s: impact not computed: its files do not load at the %s", name, why))
			continue
		}
		base, head := map[subKey]*resolvedSub{}, map[subKey]*resolvedSub{}
		if bc != nil {
			if err := l.resolveCluster(ctx, bs, bc, base); err != nil {
				return err
			}
		}
		if hc != nil {
			if err := l.resolveCluster(ctx, hs, hc, head); err != nil {
				return err
			}
		}
		for _, k := range unionKeys(base, head) {
			im, changed := compareSub(k, base[k], head[k])
			if !changed {
				r.Unchanged++
				continue
			}
			r.Impact = append(r.Impact, im)
		}
	}
	return nil
}

// unresolvable says why a side cannot be resolved at all; "" when it can.
func unresolvable(s *side) string {
	switch {
	case !s.configured:
		return v1alpha1.RepositoryFile + " does not load"
	case len(s.broken) > 0:
		return "catalog " + strings.Join(s.broken, ", ") + " does not load"
	}
	return ""
}

func brokenAt(bc, hc *clusterState) string {
	var at []string
	if bc != nil && bc.broken {
		at = append(at, "base")
	}
	if hc != nil && hc.broken {
		at = append(at, "head")
	}
	return strings.Join(at, " and the ")
}

// clusterNames are the head's clusters, then those only the base has.
func clusterNames(bs, hs *side) []string {
	var names []string
	for _, s := range []*side{hs, bs} {
		for _, c := range s.clusters {
			if !slices.Contains(names, c.cluster.Name) {
				names = append(names, c.cluster.Name)
			}
		}
	}
	return names
}

func unionKeys(a, b map[subKey]*resolvedSub) []subKey {
	var keys []subKey
	for _, m := range []map[subKey]*resolvedSub{a, b} {
		for k := range m {
			if !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, func(x, y subKey) int {
		return cmp.Or(cmp.Compare(x.namespace, y.namespace), cmp.Compare(x.name, y.name))
	})
	return keys
}

// compareSub compares one subscription's sides; false when nothing a
// reviewer would care about differs.
func compareSub(k subKey, b, h *resolvedSub) (Impact, bool) {
	im := Impact{Cluster: k.cluster, Namespace: k.namespace, Name: k.name}
	from := h
	if from == nil {
		from = b
	}
	im.Kind, im.Package, im.Approval, im.Pos = from.kind, from.pkg, from.approval, from.pos
	if b != nil {
		res := b.res
		im.Base = &res
	}
	if h != nil {
		res := h.res
		im.Head = &res
		for _, w := range h.warnings {
			if b == nil || !slices.Contains(b.warnings, w) {
				im.Warnings = append(im.Warnings, w)
			}
		}
	}
	changed := b == nil || h == nil || len(im.Warnings) > 0 ||
		b.res.Bundle != h.res.Bundle || b.res.Installed != h.res.Installed ||
		(b.res.Error == "") != (h.res.Error == "")
	im.Action = action(im)
	return im, changed
}

// action is what the merge makes the planner do: nothing when the head
// resolves as the base does (what the planner has to do then, it has to do
// anyway), plan anew where the head's resolution differs from its
// committed plan, else apply the plan the head carries.
func action(im Impact) Action {
	h := im.Head
	byApproval := ActionCommit
	if im.Approval == string(v1alpha1.ApprovalManual) {
		byApproval = ActionPropose
	}
	switch {
	case h == nil:
		if im.Base != nil && im.Base.Installed != "" {
			return byApproval // the plan's removal
		}
		return ActionNone
	case h.Error != "":
		return ActionBlocked
	case im.Base != nil && im.Base.Error == "" && im.Base.Bundle == h.Bundle && im.Base.Installed == h.Installed:
		return ActionNone
	case h.Bundle != h.Installed:
		return byApproval
	case im.Base != nil && im.Base.Installed != h.Installed:
		return ActionApply
	}
	return ActionNone
}

// Line is the impact in one line, such as
// "prod-east/etcd-system/etcd: 0.9.2 → 0.9.4, Manual, a pull request will be opened".
func (im Impact) Line() string {
	return im.Key() + ": " + im.Change()
}

// Change is Line without the subscription's name.
func (im Impact) Change() string {
	move := where(im.Base) + " → " + where(im.Head)
	if im.Base != nil && im.Head != nil && im.Base.Error == "" && im.Head.Error == "" && im.Base.Bundle == im.Head.Bundle {
		move = where(im.Head) // only the plan or the warnings differ
	}
	what := ""
	switch im.Action {
	case ActionCommit:
		what = "will be committed"
		if im.Head == nil {
			what = "the plan's removal will be committed"
		}
	case ActionPropose:
		what = "a pull request will be opened"
		if im.Head == nil {
			what = "a pull request will remove the plan"
		}
	case ActionApply:
		what = "the plan in this pull request is applied after the merge"
	case ActionBlocked:
		return move
	default:
		what = "unchanged"
		if im.Head == nil {
			what = "no plan to remove"
		}
	}
	if im.Kind == kindDependency && im.Base == nil {
		move = "new dependency, " + move
	}
	return move + ", " + im.Approval + ", " + what
}

// where names where a subscription resolves on one side.
func where(r *Resolved) string {
	switch {
	case r == nil:
		return "(none)"
	case r.Error != "":
		return "does not resolve"
	case r.Version != "":
		return r.Version
	}
	return r.Bundle
}
