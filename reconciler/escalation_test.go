package reconciler

import (
	"os"
	"strings"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
)

const adminBinding = "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\nmetadata:\n  name: etcd-admin\n" +
	"roleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: ClusterRole\n  name: cluster-admin\n" +
	"subjects:\n- kind: ServiceAccount\n  name: etcd-operator\n  namespace: etcd-system\n"

// A merged plan of an Automatic subscription that grants cluster-admin is
// not applied while olmops.yaml denies escalations: here a commit lifts
// the Deny policy of the last applied commit together with the overlay
// and the plan that escalate, which branch protection did not stop. Plans
// unchanged since they were applied are not held by a new Deny.
func TestEscalationDenied(t *testing.T) {
	l := newLifecycle(t, nil)
	base, err := os.ReadFile("../examples/olmops.yaml")
	if err != nil {
		t.Fatal(err)
	}
	withPolicy := func(action string) []byte {
		return []byte(strings.Replace(string(base), "spec:\n", "spec:\n  policy:\n    escalations:\n      onAutomatic: "+action+"\n", 1))
	}
	if obj, _ := l.pass(t); condition(obj, v1alpha1.ReadyCondition) != "True "+v1alpha1.SucceededReason {
		t.Fatalf("first apply: %s", readyMessage(obj))
	}
	// Committed without planning: the planner would refuse prod-east's
	// Automatic acme-db under Deny, and staging's plans stay current.
	gittest.Commit(t, l.f.dir, "main", gittest.Change{Files: map[string][]byte{"olmops.yaml": withPolicy("Deny")}, Message: "deny escalations"})
	obj, _ := l.pass(t)
	if got := condition(obj, v1alpha1.ReadyCondition); got != "True "+v1alpha1.SucceededReason {
		t.Fatalf("Ready = %s under Deny with plans unchanged since they were applied: %s", got, readyMessage(obj))
	}
	applied := obj.Status.LastAppliedCommit

	files := overlay(extraConfigMap, adminBinding)
	files["olmops.yaml"] = withPolicy("Allow")
	l.commit(t, "staging: bind etcd to cluster-admin, and allow it", files)
	obj, evs := l.pass(t)
	want := "False " + v1alpha1.EscalationDeniedReason
	if got := condition(obj, v1alpha1.ReadyCondition); got != want {
		t.Fatalf("Ready = %s, want %s: %s", got, want, readyMessage(obj))
	}
	if got := condition(obj, v1alpha1.StalledCondition); got != "True "+v1alpha1.EscalationDeniedReason {
		t.Errorf("Stalled = %s", got)
	}
	msg := readyMessage(obj)
	for _, w := range []string{"clusters/staging/plans/etcd-system/etcd/installplan.yaml grants", "cluster-admin", "nothing applied"} {
		if !strings.Contains(msg, w) {
			t.Errorf("Ready message %q lacks %q", msg, w)
		}
	}
	if !hasEventLike(evs, "Warning "+v1alpha1.EscalationDeniedReason) {
		t.Errorf("events %q lack an EscalationDenied warning", evs)
	}
	if obj.Status.LastAppliedCommit != applied {
		t.Errorf("lastAppliedCommit = %s, want %s still", obj.Status.LastAppliedCommit, applied)
	}
	if l.exists(t, &rbacv1.ClusterRoleBinding{}, "", "etcd-admin") {
		t.Error("the denied cluster-admin binding was applied")
	}
}
