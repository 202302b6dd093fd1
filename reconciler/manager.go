package reconciler

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/go-logr/logr"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/source"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/apply"
	"github.com/olmops/olmops/reconciler/planning"
	"github.com/olmops/olmops/reconciler/pushhook"
	"github.com/olmops/olmops/reconciler/request"
	"github.com/olmops/olmops/render"
)

// Options configure the manager olmops serve runs.
type Options struct {
	// MetricsAddr serves /metrics; "0" turns it off.
	MetricsAddr string
	// ProbeAddr serves /healthz and /readyz; "0" turns it off.
	ProbeAddr string
	// WebhookAddr serves pushhook.Path; "" or "0" turns it off, as does
	// an empty WebhookSecret: unsigned pushes are never taken.
	WebhookAddr   string
	WebhookSecret []byte
	// LeaderElection makes one replica of a shard work at a time.
	LeaderElection bool
	// LeaderElectionNamespace holds the lease; empty means the namespace
	// olmops runs in.
	LeaderElectionNamespace string
	// WatchLabelSelector restricts the Repositories reconciled, so that
	// several deployments share them out (Flux's sharding).
	WatchLabelSelector string
	// WatchNamespace restricts the Repositories to one namespace.
	WatchNamespace string
	// CacheDir holds the repositories' clones.
	CacheDir string
	// MaxFetchSize caps the bytes one fetch of a Repository reads over
	// HTTP(S); a larger one leaves it Stalled (FetchTooLarge). 0 means no
	// cap.
	MaxFetchSize int64
	// Concurrency is how many Repositories are reconciled at a time.
	Concurrency int
	// Recheck: see RepositoryReconciler.
	Recheck time.Duration
	// HealthPoll is the Applier's PollInterval.
	HealthPoll time.Duration
	// HTTPClient sends the GitHub forge's requests (tests).
	HTTPClient *http.Client
	// SkipNameValidation lets one process build several managers, each
	// with its own Repository controller (tests).
	SkipNameValidation bool
	// Version is written into the plans the planning controller commits.
	Version string
}

// Scheme knows the types olmops reads and writes typed.
func Scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	err := errors.Join(clientgoscheme.AddToScheme(s), apiextensionsv1.AddToScheme(s), v1alpha1.AddToScheme(s))
	return s, err
}

// NewManager builds the controller manager: the Repository controller,
// its metrics, probes and the push webhook.
func NewManager(cfg *rest.Config, opts Options) (manager.Manager, error) {
	scheme, err := Scheme()
	if err != nil {
		return nil, err
	}
	repoSelector := labels.Everything()
	if opts.WatchLabelSelector != "" {
		if repoSelector, err = labels.Parse(opts.WatchLabelSelector); err != nil {
			return nil, fmt.Errorf("--watch-label-selector: %w", err)
		}
	}
	repoCache := cache.ByObject{Label: repoSelector}
	if opts.WatchNamespace != "" {
		repoCache.Namespaces = map[string]cache.Config{opts.WatchNamespace: {}}
	}
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		Scheme:                  scheme,
		Metrics:                 metricsserver.Options{BindAddress: opts.MetricsAddr},
		HealthProbeBindAddress:  opts.ProbeAddr,
		LeaderElection:          opts.LeaderElection,
		LeaderElectionID:        leaderElectionID(opts.WatchLabelSelector),
		LeaderElectionNamespace: opts.LeaderElectionNamespace,
		// Every object olmops applies carries its label: the applier
		// reads them from this cache, and nothing else gets cached.
		Cache: cache.Options{
			DefaultLabelSelector: labels.SelectorFromSet(labels.Set{render.ManagedByLabel: render.ManagedBy}),
			ByObject: map[client.Object]cache.ByObject{
				&v1alpha1.Repository{}: repoCache,
				// Planners shard with the same selector and namespace.
				&v1alpha1.Planner{}: repoCache,
			},
		},
	})
	if err != nil {
		return nil, err
	}
	if err := errors.Join(mgr.AddHealthzCheck("ping", healthz.Ping), mgr.AddReadyzCheck("ping", healthz.Ping)); err != nil {
		return nil, err
	}
	r, err := newReconciler(mgr, opts)
	if err != nil {
		return nil, err
	}
	pushes := make(chan event.GenericEvent, 256)
	if err := r.SetupWithManager(mgr, controller.Options{MaxConcurrentReconciles: opts.Concurrency, SkipNameValidation: &opts.SkipNameValidation}, pushes); err != nil {
		return nil, err
	}
	planPushes, planReports := make(chan event.GenericEvent, 256), make(chan event.GenericEvent, 256)
	if err := setupPlanning(mgr, opts, planPushes, planReports); err != nil {
		return nil, err
	}
	if opts.WebhookAddr != "" && opts.WebhookAddr != "0" {
		if len(opts.WebhookSecret) == 0 {
			return nil, errors.New("--webhook-bind-address needs a webhook secret (--webhook-secret-file): unsigned pushes are refused")
		}
		if err := mgr.Add(webhookServer(opts.WebhookAddr, opts.WebhookSecret, mgr.GetCache(), pushes, planPushes, planReports)); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// leaderElectionID gives each shard its own lease, so shards run side by
// side while the replicas of one shard take turns.
func leaderElectionID(selector string) string {
	if selector == "" {
		return "olmops.io"
	}
	sum := sha256.Sum256([]byte(selector))
	return "olmops.io-" + hex.EncodeToString(sum[:])[:10]
}

func newReconciler(mgr manager.Manager, opts Options) (*RepositoryReconciler, error) {
	direct, err := client.New(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()})
	if err != nil {
		return nil, err
	}
	metrics, err := NewMetrics(crmetrics.Registry)
	if err != nil {
		return nil, err
	}
	syncer := &Syncer{
		Applier: &apply.Applier{Client: direct, Reader: mgr.GetCache(), PollInterval: opts.HealthPoll,
			Impersonate: apply.NewImpersonator(mgr.GetConfig(), client.Options{Scheme: mgr.GetScheme(), Mapper: mgr.GetRESTMapper()}).Client},
		Catalogs:         gitsource.NewCatalogCache(0),
		OpenShiftVersion: (&openShift{reader: mgr.GetAPIReader()}).version,
		ClusterOperator:  direct,
		Metrics:          metrics,
	}
	return &RepositoryReconciler{
		Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Syncer: syncer,
		Sources:  &Sources{CacheDir: opts.CacheDir, HTTPClient: opts.HTTPClient, MaxFetchSize: opts.MaxFetchSize},
		Recorder: mgr.GetEventRecorder("olmops"), Recheck: opts.Recheck,
	}, nil
}

// SetupWithManager registers the controller: it watches Repositories
// (spec changes and reconcile requests only: its own status writes do not
// wake it) and pushes.
// Git hosts and API servers that fail are not hammered: retries back off
// from one second to five minutes.
func (r *RepositoryReconciler) SetupWithManager(mgr manager.Manager, opts controller.Options, pushes <-chan event.GenericEvent) error {
	opts.MaxConcurrentReconciles = max(opts.MaxConcurrentReconciles, 1)
	if opts.RateLimiter == nil {
		opts.RateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[ctrl.Request](time.Second, 5*time.Minute)
	}
	return ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.Repository{}, builder.WithPredicates(predicate.Or(predicate.GenerationChangedPredicate{}, request.Changed))).
		WatchesRawSource(source.Channel(pushes, &handler.EnqueueRequestForObject{})).
		WithOptions(opts).
		Named("repository").
		Complete(r)
}

// webhookServer serves the push webhook; a push enqueues the
// Repositories and the Planners of its URL and branch, a commit status
// the Planners that follow the cluster it reports (planReports).
func webhookServer(addr string, secret []byte, c cache.Cache, pushes, planPushes, planReports chan<- event.GenericEvent) manager.Runnable {
	notify := func(ctx context.Context, p pushhook.Push) int {
		log := logr.FromContextOrDiscard(ctx)
		var repos v1alpha1.RepositoryList
		if err := c.List(ctx, &repos); err != nil {
			log.Error(err, "list Repositories for a push")
		}
		var planners v1alpha1.PlannerList
		if err := c.List(ctx, &planners); err != nil {
			log.Error(err, "list Planners for a push")
		}
		var objs []client.Object
		var to []chan<- event.GenericEvent
		for i := range repos.Items {
			if obj := &repos.Items[i]; !obj.Spec.Suspend && p.Matches(obj.Spec.URL, cmp.Or(obj.Spec.Branch, "main")) {
				objs, to = append(objs, obj), append(to, pushes)
			}
		}
		for i := range planners.Items {
			if obj := &planners.Items[i]; !obj.Spec.Suspend && p.Matches(obj.Spec.URL, cmp.Or(obj.Spec.Branch, "main")) {
				objs, to = append(objs, obj), append(to, planPushes)
			}
		}
		for i, obj := range objs {
			select {
			case to[i] <- event.GenericEvent{Object: obj}:
			case <-ctx.Done():
				return i
			}
		}
		return len(objs)
	}
	mux := http.NewServeMux()
	mux.Handle(pushhook.Path, pushhook.NewHandler(secret, pushhook.Receivers{Push: notify, Status: planning.StatusNotifier(c, planReports)}))
	return manager.RunnableFunc(func(ctx context.Context) error {
		// A body is read before its signature can be checked: bound how
		// long a sender may take over it.
		srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
			BaseContext: func(net.Listener) context.Context { return ctx }}
		go func() {
			<-ctx.Done()
			shutdown, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(shutdown)
		}()
		if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("push webhook: %w", err)
		}
		return nil
	})
}

// OpenShiftVersion reads the version an OpenShift cluster runs from its
// ClusterVersion; "" on a cluster that has none.
func OpenShiftVersion(ctx context.Context, r client.Reader) (string, error) {
	cv := &unstructured.Unstructured{}
	cv.SetAPIVersion("config.openshift.io/v1")
	cv.SetKind("ClusterVersion")
	err := r.Get(ctx, client.ObjectKey{Name: "version"}, cv)
	if meta.IsNoMatchError(err) || apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	v, _, _ := unstructured.NestedString(cv.Object, "status", "desired", "version")
	return v, nil
}

// openShift remembers a cluster that is not OpenShift for notOpenShiftTTL:
// asking costs a discovery round trip each time.
type openShift struct {
	reader client.Reader
	mu     sync.Mutex
	absent time.Time
}

const notOpenShiftTTL = 10 * time.Minute

func (o *openShift) version(ctx context.Context) (string, error) {
	o.mu.Lock()
	skip := !o.absent.IsZero() && time.Since(o.absent) < notOpenShiftTTL
	o.mu.Unlock()
	if skip {
		return "", nil
	}
	v, err := OpenShiftVersion(ctx, o.reader)
	if err == nil && v == "" {
		o.mu.Lock()
		o.absent = time.Now()
		o.mu.Unlock()
	}
	return v, err
}
