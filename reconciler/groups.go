package reconciler

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
)

// keepGroups applies, once the pass's plans are applied and removed, what
// each namespace's OperatorGroup needs (render.OperatorGroupObjects): its
// ClusterRoles aggregating the APIs of every operator installed in the
// namespace, and the group annotated with them. The set belongs to the
// namespace, not to one plan, so it is computed here from all of them: a
// plan that installs nothing adds no API. A namespace whose last plan left
// the branch loses its set when pruning is on. A failure fails the pass's
// outcome: tenants would not get the access the operators promise.
func (s *Syncer) keepGroups(ctx context.Context, t Target, results []*subResult, out *Outcome) {
	installed := map[string][][]*unstructured.Unstructured{} // by namespace
	for _, r := range results {
		hops := installed[r.plan.namespace]
		if hop := installedHop(r); hop != nil {
			hops = append(hops, hop)
		}
		installed[r.plan.namespace] = hops // present even when nil: the namespace still has a plan
	}
	var gone []string
	for _, prev := range t.Previous {
		if _, ok := installed[prev.Namespace]; !ok && !slices.Contains(gone, prev.Namespace) {
			gone = append(gone, prev.Namespace)
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(installed)) {
		hops := installed[ns]
		if len(hops) == 0 {
			continue // nothing installed: nothing to grant, nothing to take
		}
		var apis []string
		for _, hop := range hops {
			apis = append(apis, render.ProvidedAPIs(hop)...)
		}
		s.applyGroup(ctx, t, ns, render.OperatorGroupObjects(render.OperatorGroupOf(ns, hops[0]), apis), out)
	}
	if t.Prune {
		slices.Sort(gone)
		for _, ns := range gone {
			s.applyGroup(ctx, t, ns, nil, out)
		}
	}
}

// applyGroup applies one namespace's set, unless the Syncer applied the
// very same set last time (an unchanged pass makes no call), and tells of
// a failure.
func (s *Syncer) applyGroup(ctx context.Context, t Target, ns string, objs []*unstructured.Unstructured, out *Outcome) {
	k := inventoryKey(t.ID, ns, "")
	digest := groupDigest(objs, t.Prune)
	s.mu.Lock()
	same := s.groups[k] == digest
	s.mu.Unlock()
	if same {
		return
	}
	res, err := s.Applier.ApplyGroup(ctx, ns, objs, t.Prune)
	s.mu.Lock()
	if s.groups == nil {
		s.groups = map[string]string{}
	}
	if err == nil && res.Skipped == "" {
		s.groups[k] = digest
	} else {
		// Tried again next pass: OLM may be installed by then.
		delete(s.groups, k)
	}
	s.mu.Unlock()
	if err != nil {
		t.event(true, "OperatorGroupFailed", err.Error())
		out.Settled = false
		if severity(v1alpha1.ApplyFailedReason) > severity(out.Reason) {
			out.Reason, out.Message = v1alpha1.ApplyFailedReason, err.Error()
		}
	}
}

// groupDigest fingerprints a namespace's set as applied.
func groupDigest(objs []*unstructured.Unstructured, prune bool) string {
	data, _ := json.Marshal(struct {
		Objs  []*unstructured.Unstructured
		Prune bool
	}{objs, prune})
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// installedHop is the objects of the hop whose bundle the subscription
// has installed, nil when none is.
func installedHop(r *subResult) []*unstructured.Unstructured {
	if r == nil || r.plan.err != nil || r.status.InstalledBundle == "" {
		return nil
	}
	for _, h := range r.plan.req.Hops {
		if h.Bundle == r.status.InstalledBundle {
			return h.Objects
		}
	}
	return nil
}
