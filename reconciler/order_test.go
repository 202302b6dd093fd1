package reconciler

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/reconciler/apply"
)

func TestWaves(t *testing.T) {
	tests := []struct {
		name  string
		needs []planNeeds
		want  [][]int
	}{
		{"independent plans share a wave", []planNeeds{{}, {}, {}}, [][]int{{0, 1, 2}}},
		{"a provider first", []planNeeds{{providers: []int{1}}, {}}, [][]int{{1}, {0}}},
		{"a chain", []planNeeds{{providers: []int{1}}, {providers: []int{2}}, {}}, [][]int{{2}, {1}, {0}}},
		{"a cycle goes last, together", []planNeeds{{providers: []int{1}}, {providers: []int{0}}, {}}, [][]int{{2}, {0, 1}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := waves(tt.needs); !slices.EqualFunc(got, tt.want, slices.Equal) {
				t.Errorf("waves = %v, want %v", got, tt.want)
			}
		})
	}
}

// prod-east's proposal carries etcd and acme-db, which requires etcd's
// EtcdCluster API. Merged whole, etcd is applied and healthy before
// acme-db starts. A commit carrying acme-db alone (a plan merged by hand)
// is held: nothing of it is applied, and the status, the condition's
// reason, an event and the commit status say what it waits for.
func TestSyncOrdersProvidersAndHoldsMissingAPIs(t *testing.T) {
	f := newFleetRepo(t, false, nil)
	f.plan(t)
	f.startEnv(t)
	t.Cleanup(kubetest.Rollout(context.Background(), f.env.Client, "", 20*time.Millisecond))
	const branch, dir = "olmops/prod-east/etcd-system/etcd", "clusters/prod-east/plans/etcd-system/"
	ctx := t.Context()
	repo, err := gitsource.Open(ctx, gitsource.Options{URL: f.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: gitPassword}})
	if err != nil {
		t.Fatal(err)
	}
	s := &Syncer{Applier: &apply.Applier{Client: f.env.Client, PollInterval: 20 * time.Millisecond, HealthTimeout: time.Minute,
		Impersonate: apply.NewImpersonator(f.env.Config, client.Options{Scheme: f.env.Scheme, Mapper: f.env.Client.RESTMapper()}).Client}}
	pass := func(t *testing.T, prev []v1alpha1.SubscriptionStatus) (*Outcome, *recordingForge, *eventLog) {
		t.Helper()
		if err := repo.Fetch(ctx); err != nil {
			t.Fatal(err)
		}
		commit, err := repo.Resolve(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		forge, evs := &recordingForge{}, &eventLog{}
		out, err := s.Sync(ctx, Target{ID: "order", Repo: repo, Commit: commit, Branch: "main", Cluster: "prod-east",
			Forge: fixedForge(forge), Previous: prev, Event: evs.add})
		if err != nil {
			t.Fatal(err)
		}
		return out, forge, evs
	}

	var prev []v1alpha1.SubscriptionStatus
	t.Run("a plan whose API nothing provides is held", func(t *testing.T) {
		gittest.Commit(t, f.dir, "main", gittest.Change{Files: treeFiles(t, f.dir, branch, dir+"acme-db"), Message: "acme-db alone"})
		out, forge, evs := pass(t, nil)
		st := status(out, "acme-db")
		const why = "requires EtcdCluster (etcd.database.coreos.com/v1beta2), package etcd (>=0.9.2 <0.11.0): absent from the cluster and from the plans of etcd-system"
		if st.Phase != v1alpha1.SubscriptionHeld || !strings.Contains(st.Message, why) || st.InstalledBundle != "" || len(st.Inventory) != 0 {
			t.Errorf("acme-db = %+v", st)
		}
		if out.Reason != v1alpha1.DependencyHeldReason || out.Settled != true || !out.Waiting {
			t.Errorf("outcome %+v", out)
		}
		if !slices.ContainsFunc(forge.sent(), func(s string) bool {
			return strings.Contains(s, "olmops/prod-east/etcd-system/acme-db pending held at acme-db.v1.1.0 · acme-db.v1.1.0 not applied: requires EtcdCluster")
		}) {
			t.Errorf("no held commit status among %q", forge.sent())
		}
		if !evs.has(v1alpha1.DependencyHeldReason, "etcd-system/acme-db: acme-db.v1.1.0 not applied: "+why) {
			t.Errorf("no DependencyHeld event among %q", evs.all())
		}
		err := f.env.Client.Get(ctx, client.ObjectKey{Namespace: "etcd-system", Name: "acme-db-operator"}, &appsv1.Deployment{})
		if !apierrors.IsNotFound(err) {
			t.Errorf("acme-db's Deployment exists although it was held (%v)", err)
		}
		prev = out.Subscriptions
	})

	t.Run("merged together, the provider goes first", func(t *testing.T) {
		gittest.Commit(t, f.dir, "main", gittest.Change{Files: treeFiles(t, f.dir, branch, dir+"etcd"), Message: "etcd too"})
		out, _, evs := pass(t, prev)
		for _, name := range []string{"etcd", "acme-db"} {
			if st := status(out, name); st.Phase != v1alpha1.SubscriptionInstalled || !st.Healthy {
				t.Errorf("%s = %+v", name, st)
			}
		}
		all := evs.all()
		etcdDone := slices.IndexFunc(all, func(e string) bool { return strings.HasPrefix(e, "HopInstalled etcd-system/etcd:") })
		dbStart := slices.IndexFunc(all, func(e string) bool { return strings.HasPrefix(e, "HopStarted etcd-system/acme-db:") })
		if etcdDone < 0 || dbStart < 0 || dbStart < etcdDone {
			t.Errorf("acme-db started before etcd was installed and healthy: %q", all)
		}
	})
}

// treeFiles reads the files under prefix at rev of the bare repository dir.
func treeFiles(t *testing.T, dir, rev, prefix string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	for _, name := range strings.Fields(gittest.Git(t, dir, "ls-tree", "-r", "--name-only", rev, prefix)) {
		out[name] = []byte(gittest.Git(t, dir, "show", rev+":"+name))
	}
	if len(out) == 0 {
		t.Fatalf("nothing under %s at %s", prefix, rev)
	}
	return out
}

func status(out *Outcome, name string) v1alpha1.SubscriptionStatus {
	for _, st := range out.Subscriptions {
		if st.Name == name {
			return st
		}
	}
	return v1alpha1.SubscriptionStatus{}
}

// eventLog records a pass's events in order, as "Reason message".
type eventLog struct {
	mu   sync.Mutex
	list []string
}

func (e *eventLog) add(ev Event) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, ev.Reason+" "+ev.Message)
}

func (e *eventLog) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

func (e *eventLog) has(reason, msg string) bool {
	return slices.Contains(e.all(), reason+" "+msg)
}

func TestBlocked(t *testing.T) {
	set := &planSet{plans: []*loadedPlan{{namespace: "ops", name: "db"}, {namespace: "ops", name: "etcd"}}}
	res := func(phase v1alpha1.SubscriptionPhase, reason string, healthy bool, installed string) *subResult {
		return &subResult{reason: reason, status: v1alpha1.SubscriptionStatus{Phase: phase, Healthy: healthy, InstalledBundle: installed}}
	}
	always := func(int) bool { return true }
	tests := []struct {
		name     string
		needs    planNeeds
		provider *subResult
		earlier  func(int) bool
		want     string
	}{
		{"nothing needed", planNeeds{}, nil, always, ""},
		{"an absent API", planNeeds{missing: []string{"EtcdCluster (etcd.database.coreos.com/v1beta2)"}}, nil, always,
			"requires EtcdCluster (etcd.database.coreos.com/v1beta2): absent from the cluster and from the plans of ops"},
		{"a healthy provider", planNeeds{providers: []int{1}}, res(v1alpha1.SubscriptionInstalled, v1alpha1.SucceededReason, true, "etcd.v1"), always, ""},
		{"an unhealthy provider", planNeeds{providers: []int{1}}, res(v1alpha1.SubscriptionFailed, v1alpha1.HealthCheckFailedReason, false, "etcd.v1"), always,
			"waits for ops/etcd (failed) to be installed and healthy first"},
		{"a provider installed but not available", planNeeds{providers: []int{1}}, res(v1alpha1.SubscriptionInstalled, v1alpha1.PruneFailedReason, false, "etcd.v1"), always,
			"waits for ops/etcd (installed) to be installed and healthy first"},
		{"a provider held by its own Upgradeable=False still serves", planNeeds{providers: []int{1}}, res(v1alpha1.SubscriptionHeld, v1alpha1.UpgradeHeldReason, true, "etcd.v1"), always, ""},
		{"a provider held for what it needs", planNeeds{providers: []int{1}}, res(v1alpha1.SubscriptionHeld, v1alpha1.DependencyHeldReason, false, ""), always,
			"waits for ops/etcd (held) to be installed and healthy first"},
		{"a provider of the same wave (a cycle) is not waited for", planNeeds{providers: []int{1}}, nil, func(int) bool { return false }, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			results := []*subResult{nil, tt.provider}
			if got := blocked(set, 0, tt.needs, results, tt.earlier); got != tt.want {
				t.Errorf("blocked = %q, want %q", got, tt.want)
			}
		})
	}
}
