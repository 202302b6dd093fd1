package planning

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/events"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/plan"
	"github.com/olmops/olmops/planner"
	"github.com/olmops/olmops/reconciler/credentials"
	"github.com/olmops/olmops/reconciler/request"
)

// Defaults for a Planner created without the API server's defaults (a
// unit test's fake client).
const (
	defaultInterval = 10 * time.Minute
	defaultTimeout  = 10 * time.Minute
)

// Reconciler reconciles Planner objects: fetch, plan when due, record.
type Reconciler struct {
	// Client patches Planners' status.
	Client client.Client
	// APIReader reads Planners and Secrets past the cache: the status
	// must be the latest, and Secrets are never cached.
	APIReader client.Reader
	// CacheDir holds one clone per Planner.
	CacheDir string
	// MaxFetchSize caps the bytes one clone or fetch of an HTTP(S)
	// repository reads (gitsource.Options.MaxFetchSize); 0 means no cap.
	MaxFetchSize int64
	// HTTPClient, when set, sends the GitHub forge's requests.
	HTTPClient *http.Client
	// Images and Pinner pull and pin bundle images, as for olmops plan;
	// nil leaves bundles without manifests in Git unrenderable.
	Images plan.ImageSource
	Pinner plan.ImagePinner
	// NewImages builds the client that polls and pulls the catalog
	// sources olmops.yaml names; nil leaves them unpolled, and says so.
	NewImages ImagesFunc
	// Catalogs keeps loaded catalogs between passes; nil keeps none.
	Catalogs *gitsource.CatalogCache
	// Plans keeps the committed plans read between passes; nil keeps
	// none.
	Plans *planner.PlanCache
	// Version is written into plans.
	Version string
	// Recorder records Events on the Planner; nil records none.
	Recorder events.EventRecorder
	// Metrics records passes and proposals; nil records nothing.
	Metrics *Metrics
	// Backoff spaces the retries of a failing Planner; nil means from
	// one second doubling up to five minutes.
	Backoff workqueue.TypedRateLimiter[ctrl.Request]
	// Reports, when set, carries the Planners that a followed cluster's
	// new report concerns, as the status webhook finds them (Followers):
	// each is planned at once if promotion holds one of its changes.
	Reports <-chan event.GenericEvent

	once      sync.Once
	wakes     wakes
	clientsMu sync.Mutex
	clients   map[ctrl.Request]imageClient
}

// backoff is Backoff, set to its default on first use.
func (r *Reconciler) backoff() workqueue.TypedRateLimiter[ctrl.Request] {
	r.once.Do(func() {
		if r.Backoff == nil {
			r.Backoff = workqueue.NewTypedItemExponentialFailureRateLimiter[ctrl.Request](time.Second, 5*time.Minute)
		}
	})
	return r.Backoff
}

// SetupWithManager registers the controller: it watches Planners (spec
// changes and reconcile requests only: its own status writes do not wake
// it), the pushes the webhook sends on pushes, the reports of followed
// clusters (the status of the manager's Repositories, and Reports).
func (r *Reconciler) SetupWithManager(mgr manager.Manager, opts controller.Options, pushes <-chan event.GenericEvent) error {
	// The manager has not started: there is nothing to cancel yet.
	if err := IndexFollowed(context.Background(), mgr.GetFieldIndexer()); err != nil {
		return err
	}
	opts.MaxConcurrentReconciles = max(opts.MaxConcurrentReconciles, 1)
	b := ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Planner{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, request.Changed))).
		Watches(&v1alpha1.Repository{}, handler.EnqueueRequestsFromMapFunc(r.followersOfRepository), builder.WithPredicates(reportChanged)).
		WithOptions(opts).
		Named("planner")
	if pushes != nil {
		b = b.WatchesRawSource(source.Channel(pushes, &handler.EnqueueRequestForObject{}))
	}
	if r.Reports != nil {
		b = b.WatchesRawSource(source.Channel(r.Reports, handler.EnqueueRequestsFromMapFunc(r.wokenByEvent)))
	}
	return b.Complete(r)
}

// pass is one reconcile of one Planner, handed from step to step.
type pass struct {
	req    ctrl.Request
	obj    *v1alpha1.Planner
	branch string
	creds  *credentials.Set
	repo   *gitsource.Repo
	head   plumbing.Hash
	report *planner.Report
	// planned is the branch's head once planning pushed what it made.
	planned plumbing.Hash
	// requested is true when a person asked for this pass: it plans even
	// when nothing changed.
	requested bool
	// reported is true when a followed cluster's new report woke the
	// Planner: it plans when promotion holds a change.
	reported bool
	// base is the Planner as the API server holds it, which the final
	// status patch is made against.
	base *v1alpha1.Planner
	// nextPoll is when the next catalog poll is due; 0 when none is.
	nextPoll time.Duration
}

// A step does one thing of a pass; a non-nil outcome ends the pass.
type step func(context.Context, *pass) *outcome

func (r *Reconciler) steps() []step {
	return []step{r.readCredentials, r.fetch, r.poll, r.due, r.readConfig, r.plan}
}

// Reconcile runs the steps of one pass over a Planner and records the
// outcome once, at the end (and once when planning starts, so kubectl
// shows it in progress).
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := &v1alpha1.Planner{}
	if err := r.APIReader.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			r.backoff().Forget(req)
			r.clientsMu.Lock()
			delete(r.clients, req)
			r.clientsMu.Unlock()
			r.Metrics.observeReady(req.String(), false, true)
		}
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	base := obj.DeepCopy()
	if v1alpha1.MarkSuspended(&obj.Status.Conditions, obj.Spec.Suspend, obj.Generation, "fetched or planned") {
		logr.FromContextOrDiscard(ctx).V(1).Info("suspended")
		// A reconcile request stays unhandled: `olmops reconcile` waiting
		// on it must not report a pass that did not run.
		return ctrl.Result{}, r.patchStatus(ctx, base, obj)
	}
	start := time.Now()
	// Taken before anything can end the reconcile: a wake is for one pass.
	reported := r.wakes.take(req)
	// Read before the pass records it: a pending request makes it due.
	requested := request.Pending(obj, obj.Status.LastHandledReconcileAt)
	if at := request.Of(obj); at != "" {
		obj.Status.LastHandledReconcileAt = at
	}
	if wait := r.resume(req, obj, requested, start); wait > 0 {
		logr.FromContextOrDiscard(ctx).V(1).Info("backing off, as the last controller did", "failures", obj.Status.ConsecutiveFailures, "next", wait)
		return ctrl.Result{RequeueAfter: wait}, nil
	}
	p := &pass{req: req, obj: obj, branch: cmp.Or(obj.Spec.Branch, "main"), creds: &credentials.Set{}, requested: requested, reported: reported, base: base}
	out := r.run(ctx, p)
	// Recorded with the reconcile's context, not the pass's: a pass that
	// ran out of time still says so.
	res := r.record(ctx, p, out)
	if p.nextPoll > 0 && (res.RequeueAfter == 0 || p.nextPoll < res.RequeueAfter) {
		res.RequeueAfter = p.nextPoll
	}
	r.Metrics.observePass(out.result, time.Since(start))
	logPass(ctx, p, out, time.Since(start), res.RequeueAfter)
	r.Metrics.observeReady(req.String(), meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.ReadyCondition), false)
	if err := r.patchStatus(ctx, p.base, obj); err != nil {
		return res, err
	}
	return res, nil
}

// run runs the steps within spec.timeout.
func (r *Reconciler) run(ctx context.Context, p *pass) *outcome {
	ctx, cancel := context.WithTimeout(ctx, cmp.Or(p.obj.Spec.Timeout.Duration, defaultTimeout))
	defer cancel()
	defer func() {
		if p.repo != nil {
			if err := p.repo.Close(); err != nil {
				logr.FromContextOrDiscard(ctx).Error(err, "close the clone")
			}
		}
	}()
	for _, s := range r.steps() {
		if out := s(ctx, p); out != nil {
			return out
		}
	}
	return r.succeeded(p)
}

func (r *Reconciler) readCredentials(ctx context.Context, p *pass) *outcome {
	creds, err := readCredentials(ctx, r.APIReader, p.obj)
	p.creds = creds
	if err != nil {
		return retry(v1alpha1.FetchFailedReason, err)
	}
	return nil
}

// fetch opens the Planner's clone, which fetches it. The clone is held
// exclusively until the pass ends: a planner moves its refs.
func (r *Reconciler) fetch(ctx context.Context, p *pass) *outcome {
	repo, err := gitsource.Open(ctx, gitsource.Options{URL: p.obj.Spec.URL, Auth: p.creds.Git, Exclusive: true,
		CacheDir: filepath.Join(r.CacheDir, "planning", cacheKey(p.obj, p.creds.Git)), MaxFetchSize: r.MaxFetchSize})
	if err != nil {
		return fetchFailed(fmt.Errorf("fetch %s: %w", p.obj.Spec.URL, err))
	}
	p.repo = repo
	head, err := repo.RemoteRef(ctx, plumbing.NewBranchReferenceName(p.branch).String())
	if err != nil {
		return fetchFailed(fmt.Errorf("branch %s: %w", p.branch, err))
	}
	p.head = head
	p.obj.Status.LastFetchedCommit = head.String()
	return nil
}

// fetchFailed is retried, except a fetch over the size cap: only a smaller
// repository or a higher cap helps, so it stalls until the next interval.
func fetchFailed(err error) *outcome {
	var big *gitsource.FetchTooLargeError
	if errors.As(err, &big) {
		return &outcome{result: resultStalled, reason: v1alpha1.FetchTooLargeReason, err: err}
	}
	return retry(v1alpha1.FetchFailedReason, err)
}

// due ends the pass when there is nothing to plan. A followed cluster's
// new report makes a pass due only when promotion holds a change: what
// else would it move?
func (r *Reconciler) due(ctx context.Context, p *pass) *outcome {
	if wait := notDueFor(p.obj, p.head.String(), time.Now()); wait > 0 && !p.requested && !(p.reported && promotionHeld(p.obj)) {
		logr.FromContextOrDiscard(ctx).V(1).Info("planned already", "commit", p.head.String(), "next", wait)
		return &outcome{result: resultSkipped, requeue: wait}
	}
	r.progressing(ctx, p)
	return nil
}

// notDueFor says how long planning head can wait, 0 when it is due now:
// the head is not the last planned commit, the spec changed, the last
// pass did not succeed, the interval since the last plan passed, or the
// soak that held a follower ended (status.nextPromotionTime). It is the
// one place that says why planning runs.
func notDueFor(obj *v1alpha1.Planner, head string, now time.Time) time.Duration {
	st := &obj.Status
	if head != st.LastPlannedCommit || st.ObservedGeneration != obj.Generation || !isReady(obj) || st.LastPlannedTime == nil {
		return 0
	}
	if t := st.NextPromotionTime; t != nil && !now.Before(t.Time) {
		return 0
	}
	wait := max(st.LastPlannedTime.Add(intervalOf(obj)).Sub(now), 0)
	if t := st.NextPromotionTime; t != nil {
		wait = min(wait, t.Sub(now))
	}
	return wait
}

// readConfig reads olmops.yaml at the fetched head: a broken one is the
// commit's fault, which only a new commit fixes.
func (r *Reconciler) readConfig(ctx context.Context, p *pass) *outcome {
	snap, err := p.repo.Snapshot(ctx, p.head)
	if err != nil {
		return retry(v1alpha1.FetchFailedReason, err)
	}
	cfg, err := v1alpha1.ReadRepository(snap.FS(), p.branch)
	if err != nil {
		return stalled(err)
	}
	p.obj.Status.FollowedClusters = followedClusters(cfg, p.obj.Spec.Clusters)
	return nil
}

// plan runs olmops plan --push for the selected clusters.
func (r *Reconciler) plan(ctx context.Context, p *pass) *outcome {
	pl := planner.New(planner.Options{
		Repo: p.repo, Push: true, Branch: p.branch, Clusters: p.obj.Spec.Clusters,
		Forge:  r.forgeFunc(ctx, p.obj, p.creds),
		Images: r.Images, Pinner: r.Pinner, Version: r.Version, Cache: r.Catalogs,
		Plans: r.Plans,
	})
	report, err := pl.Run(ctx)
	p.report = report
	switch {
	case errors.Is(err, planner.ErrUsage), errors.Is(err, errConfig):
		return stalled(err)
	case err != nil:
		return r.pushFailed(p, err)
	}
	if err := clusterErrors(report); err != nil {
		return stalled(err)
	}
	// The push moved the remote-tracking branch: its head is what this
	// pass planned, automatic plan commits included.
	p.planned = p.head
	if h, err := p.repo.RemoteRef(ctx, plumbing.NewBranchReferenceName(p.branch).String()); err == nil {
		p.planned = h
	}
	return nil
}

// clusterErrors names each cluster that could not be planned.
func clusterErrors(report *planner.Report) error {
	var errs []error
	for _, c := range report.Clusters {
		switch {
		case c.Err == nil:
		case strings.HasPrefix(c.Err.Error(), "cluster "+c.Name):
			errs = append(errs, c.Err)
		default:
			errs = append(errs, fmt.Errorf("cluster %s: %w", c.Name, c.Err))
		}
	}
	return errors.Join(errs...)
}
