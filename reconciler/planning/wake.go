package planning

import (
	"context"
	"slices"
	"strings"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/predicate"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/reconciler/pushhook"
)

// followedIndex indexes Planners by status.followedClusters, so that a
// cluster's new report finds the Planners that wait on it without a scan
// of every Planner's olmops.yaml.
const followedIndex = "status.followedClusters"

// IndexFollowed registers the index Followers reads; SetupWithManager
// registers it for its manager.
func IndexFollowed(ctx context.Context, indexer client.FieldIndexer) error {
	return indexer.IndexField(ctx, &v1alpha1.Planner{}, followedIndex, func(obj client.Object) []string {
		if p, ok := obj.(*v1alpha1.Planner); ok {
			return p.Status.FollowedClusters
		}
		return nil
	})
}

// Followers lists the unsuspended Planners of the repository at any of
// urls (compared as pushhook.SameRepository compares them) whose clusters
// follow cluster, as their last pass read olmops.yaml. c must carry the
// index IndexFollowed registers.
func Followers(ctx context.Context, c client.Reader, cluster string, urls ...string) ([]v1alpha1.Planner, error) {
	var list v1alpha1.PlannerList
	if err := c.List(ctx, &list, client.MatchingFields{followedIndex: cluster}); err != nil {
		return nil, err
	}
	var out []v1alpha1.Planner
	for _, p := range list.Items {
		if !p.Spec.Suspend && slices.ContainsFunc(urls, func(u string) bool { return pushhook.SameRepository(p.Spec.URL, u) }) {
			out = append(out, p)
		}
	}
	return out, nil
}

// wakes remembers the Planners that a followed cluster's new report woke,
// until their next pass takes the mark: that pass plans when promotion
// holds a change, though neither the branch nor the interval says so. A
// restart forgets the marks; the next interval or soak end still plans.
type wakes struct {
	mu  sync.Mutex
	set map[ctrl.Request]bool
}

func (w *wakes) add(req ctrl.Request) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.set == nil {
		w.set = map[ctrl.Request]bool{}
	}
	w.set[req] = true
}

// take reports whether req was woken by a report, and forgets it.
func (w *wakes) take(req ctrl.Request) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	ok := w.set[req]
	delete(w.set, req)
	return ok
}

// woken marks each Planner a report woke and queues it.
func (r *Reconciler) woken(planners []v1alpha1.Planner) []ctrl.Request {
	reqs := make([]ctrl.Request, 0, len(planners))
	for i := range planners {
		req := ctrl.Request{NamespacedName: client.ObjectKeyFromObject(&planners[i])}
		r.wakes.add(req)
		reqs = append(reqs, req)
	}
	return reqs
}

// followersOfRepository maps a Repository whose report changed to the
// Planners of its repository whose clusters follow its cluster.
func (r *Reconciler) followersOfRepository(ctx context.Context, obj client.Object) []ctrl.Request {
	repo, ok := obj.(*v1alpha1.Repository)
	if !ok {
		return nil
	}
	planners, err := Followers(ctx, r.Client, repo.Spec.Cluster, repo.Spec.URL)
	if err != nil {
		logr.FromContextOrDiscard(ctx).Error(err, "list the Planners that follow a cluster", "cluster", repo.Spec.Cluster)
		return nil
	}
	return r.woken(planners)
}

// wokenByEvent queues a Planner the status webhook names: the webhook
// already chose the followers of the reporting cluster.
func (r *Reconciler) wokenByEvent(_ context.Context, obj client.Object) []ctrl.Request {
	p, ok := obj.(*v1alpha1.Planner)
	if !ok {
		return nil
	}
	return r.woken([]v1alpha1.Planner{*p})
}

// reportChanged passes the updates of a Repository that change what it
// reports of a subscription (phase, bundles, health): what its commit
// statuses say, which it posts before it records them in its status.
var reportChanged = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	UpdateFunc: func(e event.UpdateEvent) bool {
		old, ok1 := e.ObjectOld.(*v1alpha1.Repository)
		now, ok2 := e.ObjectNew.(*v1alpha1.Repository)
		return ok1 && ok2 && !slices.EqualFunc(old.Status.Subscriptions, now.Status.Subscriptions, sameReport)
	},
}

func sameReport(a, b v1alpha1.SubscriptionStatus) bool {
	return a.Namespace == b.Namespace && a.Name == b.Name && a.Phase == b.Phase &&
		a.InstalledBundle == b.InstalledBundle && a.TargetBundle == b.TargetBundle && a.Healthy == b.Healthy
}

// promotionHeld reports whether the last pass held a change for promotion.
func promotionHeld(obj *v1alpha1.Planner) bool {
	return meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.PromotionHeldCondition)
}

// followedClusters lists the clusters that the selected clusters of cfg
// follow, sorted, without duplicates.
func followedClusters(cfg *v1alpha1.RepositoryConfig, selected []string) []string {
	var out []string
	for _, c := range cfg.Spec.Clusters {
		if c.Promotion == nil || (len(selected) > 0 && !slices.Contains(selected, c.Name)) {
			continue
		}
		out = append(out, c.Promotion.After...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// StatusNotifier is the status webhook's receiver: a commit status of a
// subscription of a cluster (olmops/<cluster>/<namespace>/<name>) sends
// to reports each Planner of the repository that follows that cluster;
// it returns how many. Any other status concerns no Planner.
func StatusNotifier(c client.Reader, reports chan<- event.GenericEvent) func(context.Context, pushhook.Status) int {
	return func(ctx context.Context, s pushhook.Status) int {
		cluster, ok := reportedCluster(s.Context)
		if !ok {
			return 0
		}
		planners, err := Followers(ctx, c, cluster, s.URLs...)
		if err != nil {
			logr.FromContextOrDiscard(ctx).Error(err, "list the Planners that follow a cluster", "cluster", cluster)
			return 0
		}
		for i := range planners {
			select {
			case reports <- event.GenericEvent{Object: &planners[i]}:
			case <-ctx.Done():
				return i
			}
		}
		return len(planners)
	}
}

// reportedCluster names the cluster of a subscription's status context,
// olmops/<cluster>/<namespace>/<name> (commitstatus.Context).
func reportedCluster(statusContext string) (string, bool) {
	rest, ok := strings.CutPrefix(statusContext, commitstatus.Prefix)
	parts := strings.Split(rest, "/")
	if !ok || len(parts) != 3 || slices.Contains(parts, "") {
		return "", false
	}
	return parts[0], true
}
