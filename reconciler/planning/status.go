package planning

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/planner"
)

// result is how a pass ended, as the metrics label it.
type result string

const (
	resultPlanned result = "planned"
	resultSkipped result = "skipped"
	resultStalled result = "stalled"
	resultFailed  result = "failed"
)

// outcome is how a pass ended and why.
type outcome struct {
	result  result
	reason  string
	err     error
	requeue time.Duration
}

func retry(reason string, err error) *outcome {
	return &outcome{result: resultFailed, reason: reason, err: err}
}

func stalled(err error) *outcome {
	return &outcome{result: resultStalled, reason: v1alpha1.InvalidInputReason, err: err}
}

func (r *Reconciler) succeeded(*pass) *outcome {
	return &outcome{result: resultPlanned, reason: v1alpha1.SucceededReason}
}

// record writes the outcome into the status, Events and metrics, and
// says when to come back.
func (r *Reconciler) record(ctx context.Context, p *pass, out *outcome) ctrl.Result {
	obj, st := p.obj, &p.obj.Status
	interval := ctrl.Result{RequeueAfter: intervalOf(obj)}
	switch out.result {
	case resultSkipped:
		return ctrl.Result{RequeueAfter: out.requeue}
	case resultPlanned:
		r.backoff().Forget(p.req)
		clearFailures(st)
		now := metav1.Now()
		st.LastPlannedCommit, st.LastPlannedTime, st.ObservedGeneration = p.planned.String(), &now, obj.Generation
		r.recordProposals(p, true)
		committed := countActions(p.report, planner.ActionCommitted)
		if committed > 0 {
			r.emit(obj, corev1.EventTypeNormal, "PlansCommitted", fmt.Sprintf("committed %d plans (Automatic) as of %.12s", committed, p.planned))
			r.Metrics.observeCommitted(committed)
		}
		open := 0
		for _, ps := range st.Proposals {
			if ps.State == string(gitsource.ProposalOpen) {
				open++
			}
		}
		msg := fmt.Sprintf("planned %.12s: %d plans committed, %d proposals open", p.planned, committed, open)
		if held := r.recordHolds(p); held > 0 {
			msg += fmt.Sprintf(", %d held by promotion (see %s)", held, v1alpha1.PromotionHeldCondition)
		}
		setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionTrue, out.reason, msg)
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.ReconcilingCondition)
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.StalledCondition)
		return ctrl.Result{RequeueAfter: untilPromotion(obj, interval.RequeueAfter, time.Now())}
	case resultStalled:
		r.backoff().Forget(p.req)
		clearFailures(st)
		st.ObservedGeneration = obj.Generation
		r.recordProposals(p, false)
		r.recordHolds(p)
		msg := p.creds.Redact(out.err.Error())
		setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionFalse, out.reason, msg)
		setCondition(obj, v1alpha1.StalledCondition, metav1.ConditionTrue, out.reason, msg)
		meta.RemoveStatusCondition(&st.Conditions, v1alpha1.ReconcilingCondition)
		r.emit(obj, corev1.EventTypeWarning, out.reason, msg)
		return ctrl.Result{RequeueAfter: untilPromotion(obj, interval.RequeueAfter, time.Now())}
	}
	r.recordProposals(p, false)
	now := time.Now()
	wait := retryWait(r.backoff().When(p.req), out.err, now)
	recordFailure(st, r.backoff().NumRequeues(p.req), now.Add(wait))
	msg := fmt.Sprintf("%s; next attempt in %s, at %s", p.creds.Redact(out.err.Error()), wait,
		now.Add(wait).UTC().Format(time.RFC3339))
	setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionFalse, out.reason, msg)
	setCondition(obj, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, v1alpha1.ProgressingWithRetryReason, msg)
	meta.RemoveStatusCondition(&st.Conditions, v1alpha1.StalledCondition)
	r.emit(obj, corev1.EventTypeWarning, out.reason, msg)
	return ctrl.Result{RequeueAfter: wait}
}

// retryWait is the backoff, or longer when the forge said when it takes
// requests again: retrying a rate limit before its reset fails again and
// spends what is left of the limit.
func retryWait(backoff time.Duration, err error, now time.Time) time.Duration {
	if at, ok := github.RetryAt(err); ok {
		return max(backoff, at.Sub(now))
	}
	return backoff
}

// recordProposals folds the pass's proposals into the status, with an
// Event and a count for each one opened or updated. The entries of a
// cluster this pass did not plan stay as they were: its proposals are
// still there. complete, the pass planned every selected cluster, so
// entries of clusters no longer selected go.
func (r *Reconciler) recordProposals(p *pass, complete bool) {
	if p.report == nil {
		return
	}
	planned := map[string]bool{}
	inReport := map[string]bool{}
	for _, c := range p.report.Clusters {
		inReport[c.Name] = true
		planned[c.Name] = c.Err == nil
	}
	prev := map[string]v1alpha1.ProposalStatus{}
	var out []v1alpha1.ProposalStatus
	for _, ps := range p.obj.Status.Proposals {
		prev[ps.Branch] = ps
		if !planned[ps.Cluster] && (inReport[ps.Cluster] || !complete) {
			out = append(out, ps)
		}
	}
	for _, ps := range proposalsOf(p.report) {
		if !planned[ps.Cluster] || slices.ContainsFunc(out, func(o v1alpha1.ProposalStatus) bool { return o.Branch == ps.Branch }) {
			continue
		}
		out = append(out, ps)
		old, had := prev[ps.Branch]
		switch {
		case !had || old.Number != ps.Number || old.State != ps.State:
			r.emit(p.obj, corev1.EventTypeNormal, "ProposalOpened", describe(ps))
			r.Metrics.observeProposal("opened")
		case old.Commit != ps.Commit:
			r.emit(p.obj, corev1.EventTypeNormal, "ProposalUpdated", describe(ps))
			r.Metrics.observeProposal("updated")
		}
	}
	slices.SortFunc(out, func(a, b v1alpha1.ProposalStatus) int { return strings.Compare(a.Branch, b.Branch) })
	p.obj.Status.Proposals = out
}

// proposalsOf lists the report's proposals, one per branch: the first
// plan of a proposal is the one that leads it.
func proposalsOf(report *planner.Report) []v1alpha1.ProposalStatus {
	var out []v1alpha1.ProposalStatus
	seen := map[string]bool{}
	for _, c := range report.Clusters {
		for _, pl := range c.Plans {
			if pl.Action != planner.ActionProposed || pl.Proposal == nil || seen[pl.Branch] {
				continue
			}
			seen[pl.Branch] = true
			out = append(out, v1alpha1.ProposalStatus{
				Branch: pl.Branch, Cluster: c.Name, Namespace: pl.Namespace, Name: pl.Name, TargetBundle: pl.To,
				Number: pl.Proposal.Number, URL: pl.Proposal.URL, State: string(pl.Proposal.State), Commit: pl.Commit,
			})
		}
	}
	return out
}

func describe(ps v1alpha1.ProposalStatus) string {
	where := ps.Branch
	if ps.URL != "" {
		where = ps.URL
	}
	return fmt.Sprintf("%s: %s/%s → %s: %s", ps.Cluster, ps.Namespace, ps.Name, ps.TargetBundle, where)
}

func countActions(report *planner.Report, a planner.Action) int {
	n := 0
	if report == nil {
		return 0
	}
	for _, c := range report.Clusters {
		for _, pl := range c.Plans {
			if pl.Action == a {
				n++
			}
		}
	}
	return n
}

// progressing marks a pass that plans and shows it at once.
func (r *Reconciler) progressing(ctx context.Context, p *pass) {
	obj := p.obj
	msg := fmt.Sprintf("planning %.12s", p.head)
	setCondition(obj, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, v1alpha1.ProgressingReason, msg)
	if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition); c == nil || c.Status != metav1.ConditionFalse {
		setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionUnknown, v1alpha1.ProgressingReason, msg)
	}
	empty := obj.DeepCopy()
	empty.Status = v1alpha1.PlannerStatus{}
	if err := r.Client.Status().Patch(ctx, obj, client.MergeFrom(empty)); err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "mark the Planner progressing")
		return
	}
	// The final patch is a diff against the server's copy: a pass that
	// ends as the last one did, within the same second, would otherwise
	// send no conditions and leave these in place.
	p.base = obj.DeepCopy()
}

// patchStatus sends what changed in the status since base.
func (r *Reconciler) patchStatus(ctx context.Context, base, obj *v1alpha1.Planner) error {
	if equality.Semantic.DeepEqual(base.Status, obj.Status) {
		return nil
	}
	return client.IgnoreNotFound(r.Client.Status().Patch(ctx, obj, client.MergeFrom(base)))
}

func isReady(obj *v1alpha1.Planner) bool {
	return meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.ReadyCondition)
}

func intervalOf(obj *v1alpha1.Planner) time.Duration {
	if d := obj.Spec.Interval.Duration; d > 0 {
		return d
	}
	return defaultInterval
}

func setCondition(obj *v1alpha1.Planner, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
		Message: v1alpha1.CutMessage(msg), ObservedGeneration: obj.Generation})
}

func (r *Reconciler) emit(obj *v1alpha1.Planner, typ, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, typ, reason, "Plan", "%s", v1alpha1.CutMessage(msg))
	}
}
