package reconciler

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/reconciler/apply"
	"github.com/olmops/olmops/reconciler/certs"
)

// subResult is one subscription after a pass.
type subResult struct {
	plan   *loadedPlan
	status v1alpha1.SubscriptionStatus
	// reason is what the subscription adds to the Ready condition.
	reason string
	// report is its commit status.
	report commitstatus.Report
	// changed is true when the apply created, updated or pruned objects.
	changed bool
}

// applyOne applies one plan from where the previous pass left it. The
// error is transient (see transient); a plan's own failure is in the
// result.
func (s *Syncer) applyOne(ctx context.Context, t Target, p *loadedPlan) (*subResult, error) {
	prev := previous(t.Previous, p.namespace, p.name)
	if p.err != nil {
		return invalid(p, prev, p.err), nil
	}
	req := p.request(prev, s.inventory(t.ID, prev), t.Prune)
	req.Progress = func(r apply.Result) { s.progress(ctx, t, p, r) }
	start := time.Now()
	res, err := s.applier(t).Apply(ctx, req)
	if res == nil {
		return invalid(p, prev, err), nil
	}
	s.remember(t.ID, p.namespace, p.name, res.Inventory)
	if err != nil && transient(err) {
		return nil, err
	}
	s.Metrics.observeApply(t.Cluster, res, time.Since(start))
	r := &subResult{plan: p, report: res.Report(), changed: res.Applied+res.Pruned > 0, status: v1alpha1.SubscriptionStatus{
		Namespace: p.namespace, Name: p.name,
		InstalledBundle: res.Installed, TargetBundle: p.file.Spec.To.Name,
		Hop: int32(res.Hop), Hops: int32(res.Hops), Healthy: res.Healthy,
		Upgradeable: metav1.ConditionTrue, UpgradeableMessage: res.NotUpgradeable,
		Inventory: refs(res.Inventory), LastAppliedCommit: prev.LastAppliedCommit,
	}}
	if res.NotUpgradeable != "" {
		r.status.Upgradeable = metav1.ConditionFalse
	}
	r.phase(res, err)
	return r, nil
}

// phase sets the subscription's phase and Ready reason from the apply.
func (r *subResult) phase(res *apply.Result, err error) {
	st := &r.status
	switch {
	case res.Phase == commitstatus.Held && len(res.MissingPermissions) > 0:
		st.Phase, st.Message, r.reason = v1alpha1.SubscriptionHeld, res.Reason, v1alpha1.MissingPermissionsReason
	case res.Phase == commitstatus.Held:
		st.Phase, st.Message, r.reason = v1alpha1.SubscriptionHeld, "Upgradeable=False: "+res.NotUpgradeable, v1alpha1.UpgradeHeldReason
		if res.NotUpgradeable == "" {
			st.Message = res.Reason
		}
	case errors.Is(err, apply.ErrUnhealthy):
		st.Phase, st.Message, r.reason = v1alpha1.SubscriptionFailed, res.Reason, v1alpha1.HealthCheckFailedReason
	case res.Phase == commitstatus.Failed:
		st.Phase, st.Message, r.reason = v1alpha1.SubscriptionFailed, res.Reason, v1alpha1.ApplyFailedReason
	case err != nil:
		// The hop is installed and healthy; only prune failed.
		st.Phase, st.Message, r.reason = v1alpha1.SubscriptionInstalled, err.Error(), v1alpha1.PruneFailedReason
	default:
		st.Phase, r.reason = v1alpha1.SubscriptionInstalled, v1alpha1.SucceededReason
	}
	if st.Phase == v1alpha1.SubscriptionInstalled && res.Hop == res.Hops {
		st.LastAppliedCommit = r.plan.carrier
	}
}

// invalid is the result of a plan that cannot be applied: nothing of it
// was, and what the previous pass installed stays recorded.
func invalid(p *loadedPlan, prev v1alpha1.SubscriptionStatus, err error) *subResult {
	st := prev
	st.Namespace, st.Name = p.namespace, p.name
	st.Phase, st.Message = v1alpha1.SubscriptionFailed, err.Error()
	st.TargetBundle = p.bundle()
	return &subResult{plan: p, status: st, reason: v1alpha1.InvalidPlanReason,
		report: commitstatus.Report{Phase: commitstatus.Failed, Bundle: p.bundle(), Reason: err.Error()}}
}

// applier is the Syncer's Applier with the target's health timeout.
func (s *Syncer) applier(t Target) *apply.Applier {
	if t.HealthTimeout == 0 {
		return s.Applier
	}
	a := *s.Applier
	a.HealthTimeout = t.HealthTimeout
	return &a
}

// progress tells of a hop as it goes: an event, and a pending status while
// a hop is applied, so a reviewer sees the upgrade moving.
func (s *Syncer) progress(ctx context.Context, t Target, p *loadedPlan, r apply.Result) {
	sub := p.namespace + "/" + p.name
	switch r.Phase {
	case commitstatus.Applying:
		t.event(false, "HopStarted", fmt.Sprintf("%s: applying %s (hop %d/%d)", sub, r.Bundle, r.Hop, r.Hops))
		s.post(ctx, t, p, r.Report())
	case commitstatus.Installed:
		if !r.Healthy {
			// A health poll's verdict: every poll, too often to record.
			if t.Waiting != nil {
				t.Waiting(Event{Reason: "HealthWait", Message: fmt.Sprintf("%s: applying %s (hop %d/%d): %s", sub, r.Bundle, r.Hop, r.Hops, r.Reason)})
			}
			return
		}
		t.event(false, "HopInstalled", fmt.Sprintf("%s: %s installed and healthy (hop %d/%d)", sub, r.Bundle, r.Hop, r.Hops))
	case commitstatus.Held:
		if len(r.MissingPermissions) > 0 {
			t.event(true, v1alpha1.MissingPermissionsReason, sub+": "+r.Reason)
			return
		}
		t.event(true, "UpgradeHeld", fmt.Sprintf("%s: upgrade to %s held at %s: Upgradeable=False: %s", sub, r.Bundle, r.Installed, r.NotUpgradeable))
	case commitstatus.Failed:
		t.event(true, "HopFailed", fmt.Sprintf("%s: %s failed (hop %d/%d): %s", sub, r.Bundle, r.Hop, r.Hops, r.Reason))
	}
}

func (t Target) event(warning bool, reason, msg string) {
	if t.Event != nil {
		t.Event(Event{Warning: warning, Reason: reason, Message: msg})
	}
}

// transient reports an error that may pass without a new commit: the API
// server or the network failing, a timeout, a conflict. The API server
// refusing an object, a missing kind, an unsafe CRD update, a refused
// serving certificate or an unhealthy hop are not: retrying them at once
// changes nothing, and the next interval tries again anyway.
func transient(err error) bool {
	switch {
	case errors.Is(err, apply.ErrUnhealthy), errors.Is(err, apply.ErrCRDUnsafe), errors.Is(err, certs.ErrRefused),
		errors.Is(err, apply.ErrCannotImpersonate):
		return false
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return true
	case apierrors.IsInvalid(err), apierrors.IsForbidden(err), apierrors.IsBadRequest(err),
		apierrors.IsNotFound(err), apierrors.IsAlreadyExists(err), apierrors.IsMethodNotSupported(err),
		apierrors.IsNotAcceptable(err), apierrors.IsUnsupportedMediaType(err),
		apierrors.IsRequestEntityTooLargeError(err), apierrors.IsGone(err), meta.IsNoMatchError(err):
		return false
	}
	return true
}

// previous finds a subscription's status in the last pass's.
func previous(prev []v1alpha1.SubscriptionStatus, namespace, name string) v1alpha1.SubscriptionStatus {
	for _, st := range prev {
		if st.Namespace == namespace && st.Name == name {
			return st
		}
	}
	return v1alpha1.SubscriptionStatus{Namespace: namespace, Name: name}
}
