package reconciler

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/kubetest"
)

func TestUpgradeGate(t *testing.T) {
	tests := []struct {
		name              string
		blocking, unknown []string
		want              gate
	}{
		{"none", nil, nil, gate{"True", AsExpectedReason, "every installed operator allows OpenShift 4.21"}},
		{"blocking", []string{"etcdoperator.v0.9.2 (max 4.20)", "acme.v1 (max 4.19)"}, nil, gate{"False", IncompatibleOperatorsReason,
			"installed operators block the upgrade to OpenShift 4.21; olm.maxOpenShiftVersion below 4.21: etcdoperator.v0.9.2 (max 4.20), acme.v1 (max 4.19)"}},
		{"not known", nil, []string{"ops/etcd: etcdoperator.v0.9.2"}, gate{"False", IncompatibleOperatorsReason,
			"installed operators block the upgrade to OpenShift 4.21; olm.maxOpenShiftVersion not known: ops/etcd: etcdoperator.v0.9.2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := upgradeGate("4.21", tt.blocking, tt.unknown); got != tt.want {
				t.Errorf("upgradeGate = %+v, want %+v", got, tt.want)
			}
		})
	}
}

// On OpenShift (a live ClusterVersion, or the cluster's facts), the pass
// keeps the ClusterOperator olmops whose Upgradeable condition the
// cluster-version operator reads; elsewhere nothing is written.
func TestClusterOperatorGate(t *testing.T) {
	env := kubetest.Start(t, kubetest.WithCRDDirs("testdata/openshift"))
	c := env.Client
	ctx := t.Context()
	s := &Syncer{ClusterOperator: c, OpenShiftVersion: func(ctx context.Context) (string, error) { return OpenShiftVersion(ctx, c) }}
	// An installed bundle whose catalog the commit does not hold: its
	// olm.maxOpenShiftVersion cannot be read, so the upgrade is refused.
	file := &v1alpha1.InstallPlan{}
	file.Spec.Package, file.Spec.Catalog.Name = "etcd", "gone"
	results := []*subResult{{plan: &loadedPlan{namespace: "ops", name: "etcd", file: file},
		status: v1alpha1.SubscriptionStatus{InstalledBundle: "etcdoperator.v0.9.2"}}}
	set := &planSet{cfg: &v1alpha1.RepositoryConfig{}}
	target := Target{Cluster: "c"}

	// Not OpenShift: neither facts nor a ClusterVersion.
	if err := s.reportCluster(ctx, target, set, results, &Outcome{}); err != nil {
		t.Fatal(err)
	}
	if co := clusterOperator(t, c); co != nil {
		t.Fatalf("a ClusterOperator was written on a cluster that is not OpenShift: %v", co.Object)
	}

	// The live ClusterVersion says 4.20.3.
	cv := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "config.openshift.io/v1", "kind": "ClusterVersion",
		"metadata": map[string]any{"name": "version"}}}
	if err := c.Create(ctx, cv); err != nil {
		t.Fatal(err)
	}
	cv.Object["status"] = map[string]any{"desired": map[string]any{"version": "4.20.3"}}
	if err := c.Status().Update(ctx, cv); err != nil {
		t.Fatal(err)
	}
	if err := s.reportCluster(ctx, target, set, results, &Outcome{}); err != nil {
		t.Fatal(err)
	}
	co := clusterOperator(t, c)
	up := upgradeableOf(co)
	if up["status"] != "False" || up["reason"] != IncompatibleOperatorsReason ||
		!strings.Contains(up["message"].(string), "OpenShift 4.21") || !strings.Contains(up["message"].(string), "ops/etcd: etcdoperator.v0.9.2") {
		t.Fatalf("Upgradeable = %v", up)
	}

	// Unchanged: no write.
	if err := s.reportCluster(ctx, target, set, results, &Outcome{}); err != nil {
		t.Fatal(err)
	}
	if again := clusterOperator(t, c); again.GetResourceVersion() != co.GetResourceVersion() {
		t.Errorf("an unchanged gate was written again (resourceVersion %s → %s)", co.GetResourceVersion(), again.GetResourceVersion())
	}

	// Another blocker, still False: the message changes, the transition
	// time does not.
	later := time.Now().Add(time.Hour)
	if err := keepClusterOperator(ctx, c, upgradeGate("4.21", []string{"acme.v1 (max 4.20)"}, nil), later); err != nil {
		t.Fatal(err)
	}
	if got := upgradeableOf(clusterOperator(t, c)); !strings.Contains(got["message"].(string), "acme.v1") || got["lastTransitionTime"] != up["lastTransitionTime"] {
		t.Errorf("Upgradeable = %v, want the new message since %v", got, up["lastTransitionTime"])
	}

	// Nothing blocks: True, with a new transition time.
	if err := keepClusterOperator(ctx, c, upgradeGate("4.21", nil, nil), later); err != nil {
		t.Fatal(err)
	}
	up = upgradeableOf(clusterOperator(t, c))
	if up["status"] != "True" || up["reason"] != AsExpectedReason || up["lastTransitionTime"] != later.UTC().Format(time.RFC3339) {
		t.Errorf("Upgradeable = %v, want True since %s", up, later.UTC().Format(time.RFC3339))
	}
}

// clusterOperator reads the ClusterOperator olmops; nil when absent.
func clusterOperator(tb testing.TB, c client.Reader) *unstructured.Unstructured {
	tb.Helper()
	co := &unstructured.Unstructured{}
	co.SetAPIVersion("config.openshift.io/v1")
	co.SetKind("ClusterOperator")
	if err := c.Get(tb.Context(), client.ObjectKey{Name: ClusterOperatorName}, co); err != nil {
		if client.IgnoreNotFound(err) != nil {
			tb.Fatal(err)
		}
		return nil
	}
	return co
}
