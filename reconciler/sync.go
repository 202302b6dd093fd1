package reconciler

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-logr/logr"
	"golang.org/x/sync/errgroup"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/reconciler/apply"
)

// DefaultConcurrency is how many plans of one cluster a Syncer applies at
// a time when Concurrency is zero.
const DefaultConcurrency = 4

// Syncer makes clusters match their plans, one pass at a time. It
// remembers, between passes, what it posted and the digests of what it
// applied, so that an unchanged pass neither re-sends objects nor
// re-posts statuses; losing that memory (a restart) costs one full apply
// and the forge's own no-op check. A Syncer serves many targets at once.
type Syncer struct {
	// Applier applies the plans; its Reader should be a cache.
	Applier *apply.Applier
	// Catalogs keeps the catalogs read for olm.maxOpenShiftVersion
	// across passes; nil loads them afresh each pass.
	Catalogs *gitsource.CatalogCache
	// OpenShiftVersion reads the cluster's live OpenShift version, ""
	// when the cluster is not OpenShift; nil, or "", falls back to the
	// cluster's facts in the repository.
	OpenShiftVersion func(ctx context.Context) (string, error)
	// ClusterOperator, when set, writes the ClusterOperator olmops
	// (ClusterOperatorName) on clusters whose OpenShift version is known:
	// Upgradeable=False while an installed bundle's
	// olm.maxOpenShiftVersion is below the next minor. Nil writes none.
	ClusterOperator client.Client
	// Concurrency bounds the plans applied at a time.
	Concurrency int
	// Metrics records durations and counts; nil records none.
	Metrics *Metrics

	mu          sync.Mutex
	inventories map[string]apply.Inventory
	posted      map[string]postedStatus
	// groups are the digests of the OperatorGroup sets last applied, per
	// target and namespace (see keepGroups).
	groups map[string]string
}

// Target is one pass: a cluster of a repository at a commit, and what the
// previous pass left.
type Target struct {
	// ID names the target across passes (the Repository's
	// namespace/name).
	ID string
	// Repo holds Commit.
	Repo *gitsource.Repo
	// Commit is the head of Branch to apply.
	Commit plumbing.Hash
	// Branch is the branch Commit was read from; olmops.yaml defaults
	// depend on it.
	Branch string
	// Cluster names the cluster in the repository.
	Cluster string
	// Forge gives where commit statuses go, from the commit's
	// olmops.yaml (as planner.Options.Forge does); nil, or a nil Forge,
	// posts none. An error posts none either, and is told as a
	// StatusesOff event: the cluster is applied all the same.
	Forge gitsource.ForgeFunc
	// Prune deletes the objects that left the plans.
	Prune bool
	// HealthTimeout overrides the Applier's when not zero.
	HealthTimeout time.Duration
	// Previous is the last pass's Outcome.Subscriptions.
	Previous []v1alpha1.SubscriptionStatus
	// statuses is what Forge gave for this pass.
	statuses gitsource.Forge
	// Event, when set, hears of every hop started, installed, held or
	// failed, and of every removal. It is called from several goroutines.
	Event func(Event)
	// Waiting, when set, hears a started hop's health wait: after each
	// poll that finds it not yet healthy, an Event HealthWait whose
	// message names the hop, the first object not yet healthy and
	// kstatus' message. It comes every poll, so it is for a display to
	// rewrite, not for a record; called from several goroutines.
	Waiting func(Event)
}

// Event is something a person watching the cluster wants to know.
type Event struct {
	// Warning marks a failure or a hold.
	Warning bool
	// Reason is one word: HopStarted, HopInstalled, UpgradeHeld,
	// HopFailed, InvalidPlan, Removed.
	Reason string
	// Message says which subscription and bundle, and why.
	Message string
}

// Outcome is what a pass did.
type Outcome struct {
	// Subscriptions is the state of every subscription with a plan,
	// sorted by namespace and name, to persist and pass back.
	Subscriptions []v1alpha1.SubscriptionStatus `json:"subscriptions"`
	// Reason is the Ready condition's reason (v1alpha1.SucceededReason,
	// UpgradeHeldReason, ApplyFailedReason, ...), Message its words.
	Reason  string `json:"reason"`
	Message string `json:"message"`
	// Settled is true when every plan is installed or held: the commit
	// is applied as far as it can be.
	Settled bool `json:"settled"`
	// Waiting is true when the state may change without a new commit (an
	// upgrade held, an install not yet healthy): look again soon.
	Waiting bool `json:"waiting"`
	// Stalled is true when only a new commit can help (a plan does not
	// load).
	Stalled bool `json:"stalled"`
	// ClusterStatus is the olmops/<cluster> status of the commit: does
	// every installed operator allow the next OpenShift minor version?
	// Nil when the cluster's OpenShift version is unknown.
	ClusterStatus *gitsource.Status `json:"clusterStatus,omitempty"`
	// Changed counts the plans whose apply changed the cluster (an object
	// created, updated or pruned), Removed the subscriptions whose plan
	// left the branch and whose objects were deleted: what the pass's log
	// line reports.
	Changed int `json:"changed"`
	Removed int `json:"removed"`
}

// Sync applies the target's plans and reports them. The error is for
// what may pass on retry (the API server or the forge unreachable); the
// Outcome is then nil, and nothing was posted for the subscriptions it
// did not reach. Failures of a plan itself are in the Outcome.
func (s *Syncer) Sync(ctx context.Context, t Target) (*Outcome, error) {
	// "head", not "commit": the statuses posted below name the commit
	// they go on, and a JSON log must not carry a key twice.
	log := logr.FromContextOrDiscard(ctx).WithValues("cluster", t.Cluster, "head", t.Commit.String()[:12])
	ctx = logr.NewContext(ctx, log)
	set, err := loadPlans(ctx, t)
	if err != nil {
		return nil, err
	}
	t.statuses = t.forge(set.cfg)
	results, err := s.applyAll(ctx, t, set)
	if err != nil {
		return nil, err
	}
	out := outcome(results)
	if err := s.remove(ctx, t, set, out); err != nil {
		return nil, err
	}
	s.keepGroups(ctx, t, results, out)
	slices.SortFunc(out.Subscriptions, func(a, b v1alpha1.SubscriptionStatus) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	s.Metrics.observeSubscriptions(t, set, out)
	s.report(ctx, t, results)
	if err := s.reportCluster(ctx, t, set, results, out); err != nil {
		return nil, err
	}
	log.V(1).Info("synced", "reason", out.Reason, "subscriptions", len(out.Subscriptions))
	return out, nil
}

// forge resolves the target's Forge for the pass's olmops.yaml.
func (t Target) forge(cfg *v1alpha1.RepositoryConfig) gitsource.Forge {
	if t.Forge == nil {
		return nil
	}
	f, err := t.Forge(cfg)
	if err != nil {
		t.event(true, "StatusesOff", "no commit statuses: "+err.Error())
		return nil
	}
	return f
}

// Forget drops what the Syncer remembers of a target that is gone (a
// deleted Repository): inventories, posted statuses and metric series.
func (s *Syncer) Forget(id string) {
	s.mu.Lock()
	for k := range s.inventories {
		if strings.HasPrefix(k, id+"\x00") {
			delete(s.inventories, k)
		}
	}
	for k := range s.posted {
		if strings.HasPrefix(k, id+"\x00") {
			delete(s.posted, k)
		}
	}
	for k := range s.groups {
		if strings.HasPrefix(k, id+"\x00") {
			delete(s.groups, k)
		}
	}
	s.mu.Unlock()
	s.Metrics.forget(id)
}

// applyAll applies the plans in waves, providers of required packages
// and APIs before their dependents (see waves), each wave Concurrency
// plans at a time. A plan that needs what is absent, or a provider that
// did not get installed and healthy, is held: nothing of it is applied.
// Every other plan runs even when another failed; the first transient
// error fails the pass once its wave is done.
func (s *Syncer) applyAll(ctx context.Context, t Target, set *planSet) ([]*subResult, error) {
	needs, err := s.needs(ctx, set)
	if err != nil {
		return nil, err
	}
	results := make([]*subResult, len(set.plans))
	ws := waves(needs)
	waveOf := make([]int, len(set.plans))
	for w, wave := range ws {
		for _, i := range wave {
			waveOf[i] = w
		}
	}
	for w, wave := range ws {
		g, gctx := errgroup.WithContext(ctx)
		g.SetLimit(cmp.Or(s.Concurrency, DefaultConcurrency))
		for _, i := range wave {
			p := set.plans[i]
			if p.err == nil {
				why := blocked(set, i, needs[i], results, func(j int) bool { return waveOf[j] < w })
				if why != "" {
					results[i] = holdFor(p, previous(t.Previous, p.namespace, p.name), why)
					t.event(true, v1alpha1.DependencyHeldReason, fmt.Sprintf("%s/%s: %s", p.namespace, p.name, results[i].status.Message))
					continue
				}
			}
			g.Go(func() error {
				r, err := s.applyOne(gctx, t, p)
				results[i] = r
				return err
			})
		}
		if err := g.Wait(); err != nil {
			return nil, err
		}
	}
	return results, nil
}

// outcome sums the subscriptions up into the Ready condition: the most
// severe reason wins, and the message lists the subscriptions it is about.
func outcome(results []*subResult) *Outcome {
	out := &Outcome{Reason: v1alpha1.SucceededReason, Settled: true}
	var notes []string
	for _, r := range results {
		st := r.status
		out.Subscriptions = append(out.Subscriptions, st)
		if r.changed {
			out.Changed++
		}
		if severity(r.reason) > severity(out.Reason) {
			out.Reason = r.reason
		}
		switch st.Phase {
		case v1alpha1.SubscriptionInstalled:
		case v1alpha1.SubscriptionHeld:
			out.Waiting = true
		case v1alpha1.SubscriptionFailed:
			out.Settled = false
			out.Stalled = out.Stalled || r.reason == v1alpha1.InvalidPlanReason
			out.Waiting = out.Waiting || r.reason == v1alpha1.HealthCheckFailedReason
		default:
			out.Settled = false
		}
		if st.Message != "" {
			notes = append(notes, st.Namespace+"/"+st.Name+": "+st.Message)
		}
	}
	slices.Sort(notes)
	out.Message = fmt.Sprintf("%d plans applied", len(results))
	if len(notes) > 0 {
		out.Message = strings.Join(notes, "; ")
	}
	return out
}

// severity orders reasons: the one a person must act on first is highest.
func severity(reason string) int {
	return slices.Index([]string{
		v1alpha1.SucceededReason,
		v1alpha1.UpgradeHeldReason,
		v1alpha1.DependencyHeldReason,
		v1alpha1.MissingPermissionsReason,
		v1alpha1.PruneFailedReason,
		v1alpha1.HealthCheckFailedReason,
		v1alpha1.ApplyFailedReason,
		v1alpha1.InvalidPlanReason,
	}, reason)
}
