package planning

import (
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/event"

	"github.com/olmops/olmops/api/v1alpha1"
)

func TestFollowedClusters(t *testing.T) {
	cfg := &v1alpha1.RepositoryConfig{}
	cfg.Spec.Clusters = []v1alpha1.Cluster{
		{Name: "staging"},
		{Name: "canary", Promotion: &v1alpha1.Promotion{After: []string{"staging"}}},
		{Name: "prod-east", Promotion: &v1alpha1.Promotion{After: []string{"canary", "staging"}}},
	}
	for _, tt := range []struct {
		name     string
		selected []string
		want     []string
	}{
		{"every cluster", nil, []string{"canary", "staging"}},
		{"a follower", []string{"canary"}, []string{"staging"}},
		{"a cluster that follows nobody", []string{"staging"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := followedClusters(cfg, tt.selected); !slices.Equal(got, tt.want) {
				t.Errorf("followedClusters(%v) = %v, want %v", tt.selected, got, tt.want)
			}
		})
	}
}

func TestReportChanged(t *testing.T) {
	repo := func(subs ...v1alpha1.SubscriptionStatus) *v1alpha1.Repository {
		r := &v1alpha1.Repository{}
		r.Status.Subscriptions = subs
		return r
	}
	applying := v1alpha1.SubscriptionStatus{Namespace: "etcd-system", Name: "etcd", Phase: "Applying", TargetBundle: "etcd.v0.9.4"}
	healthy := applying
	healthy.Phase, healthy.InstalledBundle, healthy.Healthy = "Installed", "etcd.v0.9.4", true
	reworded := healthy
	reworded.Message = "another message"
	unhealthy := healthy
	unhealthy.Healthy = false
	for _, tt := range []struct {
		name     string
		old, now *v1alpha1.Repository
		want     bool
	}{
		{"applied and healthy", repo(applying), repo(healthy), true},
		{"healthy no more", repo(healthy), repo(unhealthy), true},
		{"a first report", repo(), repo(applying), true},
		{"only the message", repo(healthy), repo(reworded), false},
		{"conditions only", repo(healthy), repo(healthy), false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := reportChanged.Update(event.UpdateEvent{ObjectOld: tt.old, ObjectNew: tt.now}); got != tt.want {
				t.Errorf("reportChanged = %v, want %v", got, tt.want)
			}
		})
	}
	if reportChanged.Create(event.CreateEvent{Object: repo(healthy)}) {
		t.Error("a Repository seen for the first time (a restart lists them all) woke its followers")
	}
}

func TestWakesAreTakenOnce(t *testing.T) {
	var w wakes
	req := ctrl.Request{}
	req.Namespace, req.Name = "ns", "fleet"
	if w.take(req) {
		t.Fatal("a Planner no report woke is taken as woken")
	}
	w.add(req)
	if !w.take(req) || w.take(req) {
		t.Error("a wake is not taken exactly once")
	}
}

// A failing poll backs off from one second, doubling, up to the catalog's
// interval and five minutes, to a whole second.
func TestPollFailed(t *testing.T) {
	now := time.Date(2026, 11, 28, 8, 0, 0, 300e6, time.UTC)
	for _, tt := range []struct {
		name     string
		failures int32
		interval time.Duration
		want     time.Duration // after now, rounded up to a second
	}{
		{"first failure", 0, time.Hour, 1700 * time.Millisecond},
		{"third failure", 2, time.Hour, 4700 * time.Millisecond},
		{"capped by the interval", 5, 10 * time.Second, 10700 * time.Millisecond},
		{"capped at five minutes", 12, time.Hour, 5*time.Minute + 700*time.Millisecond},
		{"a count past any shift", 1 << 30, time.Hour, 5*time.Minute + 700*time.Millisecond},
	} {
		t.Run(tt.name, func(t *testing.T) {
			st := &v1alpha1.CatalogPoll{ConsecutiveFailures: tt.failures}
			next := pollFailed(st, tt.interval, now)
			if got := next.Sub(now); got != tt.want {
				t.Errorf("next attempt after %v, want %v", got, tt.want)
			}
			if st.NextAttemptTime == nil || !st.NextAttemptTime.Equal(&metav1.Time{Time: next}) {
				t.Errorf("nextAttemptTime %v, want %v", st.NextAttemptTime, next)
			}
			if want := min(tt.failures, 20) + 1; st.ConsecutiveFailures != want {
				t.Errorf("consecutiveFailures %d, want %d", st.ConsecutiveFailures, want)
			}
		})
	}
}

func TestReportedCluster(t *testing.T) {
	for _, tt := range []struct {
		context, want string
		ok            bool
	}{
		{"olmops/staging/etcd-system/etcd", "staging", true},
		{"olmops/staging", "", false},      // cluster-wide
		{"olmops/staging/head", "", false}, // a refused head
		{"olmops/upgradeable", "", false},  // a proposal's check
		{"olmops//etcd-system/etcd", "", false},
		{"ci/staging/etcd-system/etcd", "", false},
		{"olmops/staging/etcd-system/etcd/x", "", false},
	} {
		if got, ok := reportedCluster(tt.context); got != tt.want || ok != tt.ok {
			t.Errorf("reportedCluster(%q) = %q, %v; want %q, %v", tt.context, got, ok, tt.want, tt.ok)
		}
	}
}
