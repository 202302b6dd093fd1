package reconciler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/reconciler/apply"
)

// The whole loop on GitHub, for prod-east (Manual, Classic): a merged
// plan is applied and reported on the commit that carried it; the
// operator's Upgradeable=False fails the next upgrade's pull request and
// holds it once merged anyway; clearing it lets the upgrade through.
func TestGitHubEndToEnd(t *testing.T) {
	f := newFleet(t, true, nil)
	f.plan(t) // PR #1 installs etcd 0.9.2, and acme-db, which needs etcd, with it
	key := f.repository(t, "prod-east")
	const ns, sub = "etcd-system", "etcd"
	ctxEtcd := commitstatus.Context("prod-east", ns, sub)

	// Before the merge nothing is applied: acme-db waits with etcd in
	// its PR, rather than being installed without the API it needs.
	eventually(t, "main applied", func() (bool, string) {
		_, obj := f.subscription(t, key, ns, sub)
		return obj.Status.LastAppliedCommit == gitHead(t, f), obj.Status.LastAppliedCommit
	})
	for _, name := range []string{sub, "acme-db"} {
		if st, _ := f.subscription(t, key, ns, name); st.Phase != "" {
			t.Fatalf("%s is applied before its pull request was merged: %+v", name, st)
		}
	}

	// Merge = approve; the push webhook wakes the controller.
	t.Run("merge applies and reports", func(t *testing.T) {
		start := time.Now()
		f.gh.Merge(t, 1)
		f.push(t)
		carrier := f.carrier(t, "prod-east", ns, sub)
		eventually(t, "success status on the merge", func() (bool, string) {
			s, _ := f.githubStatus(carrier, ctxEtcd)
			return s.State == "success", fmt.Sprintf("%+v", s)
		})
		t.Logf("merge → applied, healthy and reported in %v", time.Since(start))
		s, _ := f.githubStatus(carrier, ctxEtcd)
		if s.Description != "etcdoperator.v0.9.2 installed · healthy" {
			t.Errorf("description %q", s.Description)
		}
		d := &appsv1.Deployment{}
		if err := f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-operator"}, d); err != nil {
			t.Fatal(err)
		}
		if !slices.ContainsFunc(d.ManagedFields, func(m metav1.ManagedFieldsEntry) bool { return m.Manager == "olmops" }) {
			t.Errorf("the Deployment has no fields owned by olmops: %+v", d.ManagedFields)
		}
		// The Repository's status is written once the pass ends.
		eventually(t, "recorded", func() (bool, string) {
			st, _ := f.subscription(t, key, ns, sub)
			return st.LastAppliedCommit == carrier, fmt.Sprintf("%+v", st)
		})
		st, obj := f.subscription(t, key, ns, sub)
		if st.InstalledBundle != "etcdoperator.v0.9.2" || st.Phase != v1alpha1.SubscriptionInstalled || len(st.Inventory) == 0 {
			t.Errorf("subscription status %+v", st)
		}
		if st, _ := f.subscription(t, key, ns, "acme-db"); st.Phase != v1alpha1.SubscriptionInstalled || !st.Healthy {
			t.Errorf("acme-db, approved with etcd, is not installed: %+v", st)
		}
		if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition); c == nil || c.Status != "True" {
			t.Errorf("Ready = %+v", c)
		}
		// The cluster-wide status is posted on the applied head.
		head := obj.Status.LastAppliedCommit
		if s, ok := f.githubStatus(head, commitstatus.ClusterContext("prod-east")); !ok || s.State != "success" {
			t.Errorf("olmops/prod-east on %s = %+v", head, s)
		}
	})

	// The operator asks not to be upgraded: the status says so, and the
	// planner fails the upgrade's pull request.
	t.Run("Upgradeable=False fails the next PR", func(t *testing.T) {
		setUpgradeable(t, f, ns, "etcdoperator.v0.9.2", "False", "backup in progress")
		carrier := f.carrier(t, "prod-east", ns, sub)
		f.push(t) // no new commit: the push only makes the controller look again
		eventually(t, "Upgradeable=False reported", func() (bool, string) {
			s, _ := f.githubStatus(carrier, ctxEtcd)
			return strings.Contains(s.Description, "Upgradeable=False: backup in progress"), fmt.Sprintf("%+v", s)
		})
		f.plan(t)
		pr, ok := f.gh.PR(2)
		if !ok {
			t.Fatal("no upgrade pull request")
		}
		s, _ := f.githubStatus(pr.HeadSHA, commitstatus.UpgradeableContext)
		if s.State != "failure" {
			t.Fatalf("olmops/upgradeable on PR #2 = %+v", s)
		}
	})

	// Merged anyway: the controller holds the upgrade, then resumes by
	// itself when the operator allows it.
	t.Run("held, then resumed", func(t *testing.T) {
		f.gh.Merge(t, 2)
		f.push(t)
		carrier := f.carrier(t, "prod-east", ns, sub)
		eventually(t, "held", func() (bool, string) {
			st, _ := f.subscription(t, key, ns, sub)
			return st.Phase == v1alpha1.SubscriptionHeld, fmt.Sprintf("%+v", st)
		})
		s, _ := f.githubStatus(carrier, ctxEtcd)
		if s.State != "pending" || s.Description != "held at etcdoperator.v0.9.2 · Upgradeable=False: backup in progress" {
			t.Errorf("held status %+v", s)
		}
		_, obj := f.subscription(t, key, ns, sub)
		if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition); c == nil || c.Reason != v1alpha1.UpgradeHeldReason {
			t.Errorf("Ready = %+v", c)
		}
		setUpgradeable(t, f, ns, "etcdoperator.v0.9.2", "True", "")
		eventually(t, "upgraded", func() (bool, string) {
			s, _ := f.githubStatus(carrier, ctxEtcd)
			return s.State == "success" && s.Description == "etcdoperator.v0.9.4 installed · healthy", fmt.Sprintf("%+v", s)
		})
		// Statuses are posted when they change, not every pass. The pass
		// waited for must be a new one: a commit that leaves the plan
		// alone, so that the last applied commit moves only once that
		// pass has run (and posted, if it would).
		eventually(t, "the upgrade recorded", func() (bool, string) {
			_, obj := f.subscription(t, key, ns, sub)
			return obj.Status.LastAppliedCommit == gitHead(t, f), obj.Status.LastAppliedCommit
		})
		n := len(f.gh.StatusesFor(carrier))
		head := gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"NOTES.md": []byte("unrelated\n")}, Message: "notes"})
		f.push(t)
		eventually(t, "another pass", func() (bool, string) {
			_, obj := f.subscription(t, key, ns, sub)
			return obj.Status.LastAppliedCommit == head, obj.Status.LastAppliedCommit
		})
		if again := len(f.gh.StatusesFor(carrier)); again != n {
			t.Errorf("an unchanged pass posted %d more statuses", again-n)
		}
	})
}

// gitHead is main's head on the git server.
func gitHead(t *testing.T, f *fleet) string {
	return strings.TrimSpace(gittest.Git(t, f.dir, "rev-parse", "main"))
}

// setUpgradeable writes the operator's Upgradeable condition, as the
// operator itself would, into its OperatorCondition's spec.
func setUpgradeable(t *testing.T, f *fleet, ns, csv, status, msg string) {
	t.Helper()
	oc := &unstructured.Unstructured{}
	oc.SetGroupVersionKind(apply.OperatorConditionGVK)
	if err := f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: csv}, oc); err != nil {
		t.Fatal(err)
	}
	cond := map[string]any{"type": "Upgradeable", "status": status, "reason": "Test", "message": msg,
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}
	if err := unstructured.SetNestedSlice(oc.Object, []any{cond}, "spec", "conditions"); err != nil {
		t.Fatal(err)
	}
	if err := f.env.Client.Update(t.Context(), oc); err != nil {
		t.Fatal(err)
	}
}
