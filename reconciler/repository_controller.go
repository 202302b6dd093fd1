package reconciler

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/request"
)

// Defaults of a RepositoryReconciler's zero fields.
const (
	// DefaultRecheck is how soon a Repository with an upgrade held or an
	// install not yet healthy is looked at again, when its interval is
	// longer: the hold lifts by itself.
	DefaultRecheck = 30 * time.Second
	// defaultInterval applies when a Repository was created without the
	// API server's defaults (as in a unit test's fake client).
	defaultInterval = 5 * time.Minute
)

// RepositoryReconciler reconciles Repository objects: fetch, sync the
// cluster with the branch's plans, record the outcome.
type RepositoryReconciler struct {
	// Client patches Repositories' status.
	Client client.Client
	// APIReader reads Repositories and Secrets straight from the API
	// server: a Repository's status must be the latest, and no Secret is
	// cached, so the controller needs only get on them.
	APIReader client.Reader
	// Syncer applies and reports.
	Syncer *Syncer
	// Sources opens and fetches repositories.
	Sources *Sources
	// Recorder records Events on the Repository; nil records none.
	Recorder events.EventRecorder
	// Recheck: see DefaultRecheck.
	Recheck time.Duration
}

// Reconcile runs the named steps of one Repository: fetch, sync, record.
// The status is patched once at the end (and once at the start of work on
// a new commit or spec, so that kubectl shows it in progress).
func (r *RepositoryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	// Read past the cache: the status is the record of what was applied,
	// and a pass woken right after the last must not start from a copy
	// that lags behind it.
	obj := &v1alpha1.Repository{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.Sources.Forget(req.String())
			r.Syncer.Forget(req.String())
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	base := obj.DeepCopy()
	if v1alpha1.MarkSuspended(&obj.Status.Conditions, obj.Spec.Suspend, obj.Generation, "fetched or applied") {
		logr.FromContextOrDiscard(ctx).V(1).Info("suspended")
		// A reconcile request stays unhandled: `olmops reconcile` waiting
		// on it must not report a pass that did not run.
		return ctrl.Result{}, r.patchStatus(ctx, base, obj)
	}
	if at := request.Of(obj); at != "" {
		obj.Status.LastHandledReconcileAt = at
	}
	start := time.Now()
	var out *Outcome
	res, err := r.reconcile(ctx, base, obj, &out)
	if perr := r.patchStatus(ctx, base, obj); perr != nil {
		err = errors.Join(err, perr)
	}
	logPass(ctx, obj, out, err, time.Since(start), res.RequeueAfter)
	r.Syncer.Metrics.observeReady(req.String(), obj.Spec.Cluster, meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.ReadyCondition))
	return res, err
}

// reconcile is the steps; it records each outcome in obj's status, and in
// *synced the sync's when one ran. base is what the API server holds,
// which the final status patch is made against.
func (r *RepositoryReconciler) reconcile(ctx context.Context, base, obj *v1alpha1.Repository, synced **Outcome) (ctrl.Result, error) {
	st := &obj.Status
	creds, err := r.Sources.Credentials(ctx, r.APIReader, obj)
	redact := creds.Redact
	if err != nil {
		return r.failed(obj, v1alpha1.FetchFailedReason, err, redact)
	}
	src, err := r.Sources.Fetch(ctx, obj, creds)
	var tooLarge *gitsource.FetchTooLargeError
	switch {
	case errors.As(err, &tooLarge):
		// Retrying reads the same bytes again: wait for a new commit.
		return r.stalled(obj, v1alpha1.FetchTooLargeReason, redact(err.Error())), nil
	case err != nil:
		return r.failed(obj, v1alpha1.FetchFailedReason, err, redact)
	}
	branch := cmp.Or(obj.Spec.Branch, "main")
	commit, err := src.Resolve(ctx, branch)
	if err != nil {
		return r.failed(obj, v1alpha1.FetchFailedReason, fmt.Errorf("branch %s: %w", branch, err), redact)
	}
	if commit.String() != st.LastFetchedCommit || st.ObservedGeneration != obj.Generation {
		st.LastFetchedCommit = commit.String()
		r.progressing(ctx, base, obj, commit)
	}
	switch stall, err := r.verify(ctx, obj, src, commit); {
	case err != nil:
		return r.failed(obj, v1alpha1.VerificationFailedReason, err, redact)
	case stall != nil:
		msg := redact(stall.Error())
		r.reportRefused(ctx, obj, src, creds, refusal{commit: commit, reason: v1alpha1.VerificationFailedReason, msg: msg})
		return r.stalled(obj, v1alpha1.VerificationFailedReason, msg), nil
	}
	if denied := DeniedEscalations(ctx, src, branch, obj.Spec.Cluster, commit, st.LastAppliedCommit); denied != nil {
		msg := redact(denied.Error())
		r.reportRefused(ctx, obj, src, creds, refusal{commit: commit, reason: v1alpha1.EscalationDeniedReason, msg: msg, trusted: true})
		return r.stalled(obj, v1alpha1.EscalationDeniedReason, msg), nil
	}
	forge := func(cfg *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
		return r.Sources.Forge(ctx, r.APIReader, obj, src, cfg, creds)
	}
	out, err := r.Syncer.Sync(ctx, Target{
		ID: client.ObjectKeyFromObject(obj).String(), Repo: src, Commit: commit, Branch: branch,
		Cluster: obj.Spec.Cluster, Forge: forge, Prune: obj.Spec.PruneEnabled(),
		HealthTimeout: obj.Spec.HealthTimeout.Duration, Previous: st.Subscriptions,
		Event: func(e Event) { r.event(obj, e, redact) },
	})
	var invalid *InvalidError
	switch {
	case errors.As(err, &invalid):
		msg := redact(err.Error())
		r.reportRefused(ctx, obj, src, creds, refusal{commit: commit, reason: v1alpha1.InvalidPlanReason, msg: msg, trusted: true})
		return r.stalled(obj, v1alpha1.InvalidPlanReason, msg), nil
	case err != nil:
		return r.failed(obj, v1alpha1.ProgressingWithRetryReason, err, redact)
	}
	*synced = out
	r.record(obj, commit, out, redact)
	return ctrl.Result{RequeueAfter: r.requeue(obj, out.Waiting)}, nil
}

// record writes a finished pass into the status.
func (r *RepositoryReconciler) record(obj *v1alpha1.Repository, commit plumbing.Hash, out *Outcome, redact func(string) string) {
	st := &obj.Status
	st.Subscriptions = out.Subscriptions
	st.ObservedGeneration = obj.Generation
	if out.Settled {
		st.LastAppliedCommit = commit.String()
	}
	msg := redact(out.Message)
	switch {
	case out.Reason == v1alpha1.SucceededReason:
		r.setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionTrue, out.Reason, fmt.Sprintf("applied %.12s: %s", commit, msg))
		r.clearCondition(obj, v1alpha1.ReconcilingCondition)
		r.clearCondition(obj, v1alpha1.StalledCondition)
	case out.Stalled:
		r.stalled(obj, v1alpha1.InvalidPlanReason, msg)
	case out.Reason == v1alpha1.UpgradeHeldReason:
		r.setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionFalse, out.Reason, msg)
		r.setCondition(obj, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, out.Reason, "waiting for the operator to allow its upgrade")
		r.clearCondition(obj, v1alpha1.StalledCondition)
	case out.Reason == v1alpha1.DependencyHeldReason:
		r.setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionFalse, out.Reason, msg)
		r.setCondition(obj, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, out.Reason, "waiting for what the held plans require")
		r.clearCondition(obj, v1alpha1.StalledCondition)
	default:
		r.setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionFalse, out.Reason, msg)
		r.clearCondition(obj, v1alpha1.ReconcilingCondition)
		r.clearCondition(obj, v1alpha1.StalledCondition)
	}
}

// progressing marks work on a new commit or spec and shows it at once.
func (r *RepositoryReconciler) progressing(ctx context.Context, base, obj *v1alpha1.Repository, commit plumbing.Hash) {
	r.setCondition(obj, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, v1alpha1.ProgressingReason,
		fmt.Sprintf("applying %.12s", commit))
	if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition); c == nil || c.Status != metav1.ConditionFalse {
		r.setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionUnknown, v1alpha1.ProgressingReason, fmt.Sprintf("applying %.12s", commit))
	}
	empty := obj.DeepCopy()
	empty.Status = v1alpha1.RepositoryStatus{}
	if err := r.Client.Status().Patch(ctx, obj, client.MergeFrom(empty)); err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "mark the Repository progressing")
		return
	}
	// The final patch is a diff against the server's copy: a pass that
	// ends as the last one did, within the same second, would otherwise
	// send no conditions and leave these in place.
	obj.DeepCopyInto(base)
}

// failed records an error expected to pass and retries with backoff.
// Commit statuses are left alone: they say what the cluster holds, and a
// network failure changes nothing there.
func (r *RepositoryReconciler) failed(obj *v1alpha1.Repository, reason string, err error, redact func(string) string) (ctrl.Result, error) {
	msg := redact(err.Error())
	r.setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionFalse, reason, msg)
	r.setCondition(obj, v1alpha1.ReconcilingCondition, metav1.ConditionTrue, v1alpha1.ProgressingWithRetryReason, msg)
	r.clearCondition(obj, v1alpha1.StalledCondition)
	r.emit(obj, corev1.EventTypeWarning, reason, msg)
	return ctrl.Result{}, errors.New(msg)
}

// stalled records a repository that only a new commit or spec can fix;
// the next interval fetches again, so a fix is picked up without a retry
// loop.
func (r *RepositoryReconciler) stalled(obj *v1alpha1.Repository, reason, msg string) ctrl.Result {
	obj.Status.ObservedGeneration = obj.Generation
	r.setCondition(obj, v1alpha1.ReadyCondition, metav1.ConditionFalse, reason, msg)
	r.setCondition(obj, v1alpha1.StalledCondition, metav1.ConditionTrue, reason, msg)
	r.clearCondition(obj, v1alpha1.ReconcilingCondition)
	r.emit(obj, corev1.EventTypeWarning, reason, msg)
	return ctrl.Result{RequeueAfter: r.requeue(obj, false)}
}

func (r *RepositoryReconciler) requeue(obj *v1alpha1.Repository, waiting bool) time.Duration {
	d := cmp.Or(obj.Spec.Interval.Duration, defaultInterval)
	if waiting {
		d = min(d, cmp.Or(r.Recheck, DefaultRecheck))
	}
	return d
}

func (r *RepositoryReconciler) setCondition(obj *v1alpha1.Repository, typ string, status metav1.ConditionStatus, reason, msg string) {
	meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{Type: typ, Status: status, Reason: reason,
		Message: v1alpha1.CutMessage(msg), ObservedGeneration: obj.Generation})
}

func (r *RepositoryReconciler) clearCondition(obj *v1alpha1.Repository, typ string) {
	meta.RemoveStatusCondition(&obj.Status.Conditions, typ)
}

// patchStatus sends what changed in the status since base.
func (r *RepositoryReconciler) patchStatus(ctx context.Context, base, obj *v1alpha1.Repository) error {
	if equality.Semantic.DeepEqual(base.Status, obj.Status) {
		return nil
	}
	return client.IgnoreNotFound(r.Client.Status().Patch(ctx, obj, client.MergeFrom(base)))
}

func (r *RepositoryReconciler) event(obj *v1alpha1.Repository, e Event, redact func(string) string) {
	typ := corev1.EventTypeNormal
	if e.Warning {
		typ = corev1.EventTypeWarning
	}
	r.emit(obj, typ, e.Reason, redact(e.Message))
}

func (r *RepositoryReconciler) emit(obj runtime.Object, typ, reason, msg string) {
	if r.Recorder != nil {
		r.Recorder.Eventf(obj, nil, typ, reason, "Reconcile", "%s", v1alpha1.CutMessage(msg))
	}
}
