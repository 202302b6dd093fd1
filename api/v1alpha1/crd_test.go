package v1alpha1_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/kubetest"
)

// crdDir is what `make generate` writes; the tests install exactly that.
var crdDir = filepath.Join("..", "..", "config", "crd", "bases")

// kube serves the generated CRD; it starts on the first test that needs
// it, so the file-format tests and fuzzing never pay for it.
var kube = kubetest.NewShared(kubetest.WithCRDDirs(crdDir), kubetest.WithScheme(v1alpha1.AddToScheme))

func TestMain(m *testing.M) { os.Exit(kube.Run(m)) }

func newRepository(ns, name string) *v1alpha1.Repository {
	return &v1alpha1.Repository{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec:       v1alpha1.RepositorySpec{URL: "https://git.example.com/acme/gitops.git", Cluster: "prod-east"},
	}
}

func TestRepositoryDefaults(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	if err := env.Client.Create(t.Context(), newRepository(ns, "minimal")); err != nil {
		t.Fatal(err)
	}
	var got v1alpha1.Repository
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "minimal"}, &got); err != nil {
		t.Fatal(err)
	}
	want := v1alpha1.RepositorySpec{
		URL:           "https://git.example.com/acme/gitops.git",
		Branch:        "main",
		Cluster:       "prod-east",
		Interval:      metav1.Duration{Duration: 5 * time.Minute},
		Timeout:       metav1.Duration{Duration: time.Minute},
		HealthTimeout: metav1.Duration{Duration: 5 * time.Minute},
		Prune:         ptr.To(true),
	}
	if !equality.Semantic.DeepEqual(got.Spec, want) {
		t.Errorf("defaulted spec:\n got %+v\nwant %+v", got.Spec, want)
	}
	if !got.Spec.PruneEnabled() {
		t.Error("PruneEnabled() = false after defaulting, want true")
	}
}

func TestRepositoryRoundTrip(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	r := newRepository(ns, "full")
	r.Spec = v1alpha1.RepositorySpec{
		URL:           "git@github.com:acme/gitops.git",
		Branch:        "release/4.20",
		Cluster:       "prod-east.eu",
		Interval:      metav1.Duration{Duration: 90 * time.Second},
		Timeout:       metav1.Duration{Duration: 20 * time.Second},
		HealthTimeout: metav1.Duration{Duration: 10 * time.Minute},
		SecretRef:     &v1alpha1.LocalObjectReference{Name: "git-ssh"},
		Forge: &v1alpha1.ForgeSpec{
			Type: v1alpha1.ForgeGitHub, Owner: "acme", Repo: "gitops", BaseURL: "https://github.example.com/api/v3/",
			TokenSecretRef: &v1alpha1.LocalObjectReference{Name: "github-token"},
		},
		Suspend: true,
		// false must survive the default of true.
		Prune: ptr.To(false),
	}
	want := r.Spec.DeepCopy()
	if err := env.Client.Create(t.Context(), r); err != nil {
		t.Fatal(err)
	}

	status := v1alpha1.RepositoryStatus{
		ObservedGeneration: r.Generation,
		Conditions: []metav1.Condition{{
			Type: v1alpha1.ReadyCondition, Status: metav1.ConditionFalse, Reason: v1alpha1.UpgradeHeldReason,
			Message:            "etcd held: Upgradeable=False (migration running)",
			ObservedGeneration: r.Generation, LastTransitionTime: metav1.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		}},
		LastFetchedCommit: "0123456789abcdef0123456789abcdef01234567",
		LastAppliedCommit: "0123456789abcdef0123456789abcdef01234567",
		Subscriptions: []v1alpha1.SubscriptionStatus{{
			Namespace: "etcd", Name: "etcd", Phase: v1alpha1.SubscriptionHeld, Message: "Upgradeable=False",
			InstalledBundle: "etcdoperator.v0.9.2", TargetBundle: "etcdoperator.v0.9.4", Hop: 1, Hops: 2,
			Healthy: true, Upgradeable: metav1.ConditionFalse, UpgradeableMessage: "migration running",
			Inventory: []string{
				"apiextensions.k8s.io/v1/CustomResourceDefinition//etcdclusters.etcd.database.coreos.com",
				"apps/v1/Deployment/etcd/etcd-operator",
				"v1/ServiceAccount/etcd/etcd-operator",
			},
			LastAppliedCommit: "0123456789abcdef0123456789abcdef01234567",
		}},
	}
	r.Status = *status.DeepCopy()
	if err := env.Client.Status().Update(t.Context(), r); err != nil {
		t.Fatal(err)
	}

	var got v1alpha1.Repository
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(r), &got); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(got.Spec, *want) {
		t.Errorf("spec after the round trip:\n got %+v\nwant %+v", got.Spec, *want)
	}
	if !equality.Semantic.DeepEqual(got.Status, status) {
		t.Errorf("status after the round trip:\n got %+v\nwant %+v", got.Status, status)
	}
	if got.Spec.PruneEnabled() {
		t.Error("PruneEnabled() = true for prune: false")
	}
}

// The status subresource validates what the controller writes, too.
func TestRepositoryStatusValidation(t *testing.T) {
	tests := []struct {
		name string
		sub  []v1alpha1.SubscriptionStatus
		want string
	}{
		{
			name: "unknown phase",
			sub:  []v1alpha1.SubscriptionStatus{{Namespace: "a", Name: "b", Phase: "Done"}},
			want: "status.subscriptions[0].phase",
		},
		{
			name: "upgradeable not a condition status",
			sub:  []v1alpha1.SubscriptionStatus{{Namespace: "a", Name: "b", Phase: v1alpha1.SubscriptionInstalled, Upgradeable: "Maybe"}},
			want: "status.subscriptions[0].upgradeable",
		},
		{
			name: "one subscription twice",
			sub: []v1alpha1.SubscriptionStatus{
				{Namespace: "a", Name: "b", Phase: v1alpha1.SubscriptionInstalled},
				{Namespace: "a", Name: "b", Phase: v1alpha1.SubscriptionFailed},
			},
			want: "Duplicate value",
		},
		{
			name: "inventory entry twice",
			sub: []v1alpha1.SubscriptionStatus{{Namespace: "a", Name: "b", Phase: v1alpha1.SubscriptionInstalled,
				Inventory: []string{"v1/ConfigMap/a/x", "v1/ConfigMap/a/x"}}},
			want: "status.subscriptions[0].inventory[1]",
		},
		{
			name: "negative hop",
			sub:  []v1alpha1.SubscriptionStatus{{Namespace: "a", Name: "b", Phase: v1alpha1.SubscriptionApplying, Hop: -1}},
			want: "status.subscriptions[0].hop",
		},
	}
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRepository(ns, "status-"+string(rune('a'+i)))
			if err := env.Client.Create(t.Context(), r); err != nil {
				t.Fatal(err)
			}
			r.Status.Subscriptions = tt.sub
			err := env.Client.Status().Update(t.Context(), r)
			checkInvalid(t, err, tt.want)
		})
	}
}
