//go:build !olmops_cli

package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/reconciler"
)

// apply exits 0 only when every plan is installed and healthy: a CI job
// that reads the code alone must not take a hold for done.
func TestApplyVerdict(t *testing.T) {
	installed := v1alpha1.SubscriptionStatus{Namespace: "ns", Name: "a", Phase: v1alpha1.SubscriptionInstalled, Healthy: true}
	held := v1alpha1.SubscriptionStatus{Namespace: "ns", Name: "b", Phase: v1alpha1.SubscriptionHeld, Message: "Upgradeable=False: backup in progress"}
	failed := v1alpha1.SubscriptionStatus{Namespace: "ns", Name: "c", Phase: v1alpha1.SubscriptionFailed, Message: "Deployment op: InProgress: Replicas: 0/1"}
	tests := []struct {
		name   string
		out    reconciler.Outcome
		want   int
		stderr []string
	}{
		{"all installed", reconciler.Outcome{Reason: v1alpha1.SucceededReason, Settled: true,
			Subscriptions: []v1alpha1.SubscriptionStatus{installed}}, exitOK, nil},
		{"nothing to apply", reconciler.Outcome{Reason: v1alpha1.SucceededReason, Settled: true}, exitOK, nil},
		{"held", reconciler.Outcome{Reason: v1alpha1.UpgradeHeldReason, Settled: true, Waiting: true,
			Subscriptions: []v1alpha1.SubscriptionStatus{installed, held}}, exitHeld,
			[]string{"Held: ns/b: Upgradeable=False: backup in progress\n", "cluster c1: 1 of 2 plans held, not applied: UpgradeHeld\n"}},
		{"failed beats held", reconciler.Outcome{Reason: v1alpha1.HealthCheckFailedReason,
			Subscriptions: []v1alpha1.SubscriptionStatus{held, failed}}, exitFindings,
			[]string{"Held: ns/b: ", "Failed: ns/c: Deployment op: InProgress: Replicas: 0/1\n", "cluster c1: 1 of 2 plans failed, 1 held"}},
		{"prune failed", reconciler.Outcome{Reason: v1alpha1.PruneFailedReason, Message: "ns/a: forbidden", Settled: true,
			Subscriptions: []v1alpha1.SubscriptionStatus{installed}}, exitFindings,
			[]string{"cluster c1: PruneFailed: ns/a: forbidden\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if got := exitCode(applyVerdict(&b, "c1", &tt.out)); got != tt.want {
				t.Errorf("exit %d, want %d", got, tt.want)
			}
			for _, s := range tt.stderr {
				if !strings.Contains(b.String(), s) {
					t.Errorf("stderr lacks %q:\n%s", s, b.String())
				}
			}
			if tt.stderr == nil && b.Len() > 0 {
				t.Errorf("stderr %q, want nothing", b.String())
			}
		})
	}
}

// A plan held back exits 3 with its reason on stderr: here staging's
// ClusterExtension names a service account the cluster does not have,
// so nothing of it may be applied.
func TestApplyHeldExitCode(t *testing.T) {
	dir := exampleRepo(t)
	sub := filepath.Join(dir, "clusters/staging/subscriptions/etcd.yaml")
	data, err := os.ReadFile(sub)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("name: etcd-installer"), []byte("name: nobody-installer"), 1)
	if err := os.WriteFile(sub, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "commit", "--quiet", "-am", "staging: an account that does not exist")
	if out, errOut, code := runCLI(t, "plan", "--repo", dir, "--cluster", "staging"); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code := runCLI(t, "apply", "--repo", dir, "--cluster", "staging", "--kubeconfig", envKubeconfig(t))
	if code != exitHeld {
		t.Errorf("exit %d, want %d (held)\n%s%s", code, exitHeld, out, errOut)
	}
	if strings.Contains(errOut, "olmops: held") {
		t.Errorf("the hold is told twice:\n%s", errOut)
	}
	for _, s := range []string{"Held: etcd-system/etcd: ", "nobody-installer", "cluster staging: 1 of 1 plans held, not applied: " + v1alpha1.MissingPermissionsReason} {
		if !strings.Contains(errOut, s) {
			t.Errorf("stderr lacks %q:\n%s", s, errOut)
		}
	}
}

// apply refuses, as the controller does, Automatic plans that grant more
// than was last applied while olmops.yaml denies escalations: here no
// Repository records the cluster, so every grant counts, and nothing of
// the head may reach the cluster.
func TestApplyEscalationDenied(t *testing.T) {
	dir := exampleRepo(t)
	if out, errOut, code := runCLI(t, "plan", "--repo", dir, "--cluster", "staging"); code != exitOK {
		t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
	}
	cfg := filepath.Join(dir, "olmops.yaml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("spec:\n"), []byte("spec:\n  policy:\n    escalations:\n      onAutomatic: Deny\n"), 1)
	if err := os.WriteFile(cfg, data, 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "commit", "--quiet", "-am", "deny escalations")
	out, errOut, code := runCLI(t, "apply", "--repo", dir, "--cluster", "staging", "--kubeconfig", envKubeconfig(t))
	if code != exitFindings {
		t.Errorf("exit %d, want %d\n%s%s", code, exitFindings, out, errOut)
	}
	for _, s := range []string{v1alpha1.EscalationDeniedReason + ": ", "clusters/staging/plans/", "nothing applied"} {
		if !strings.Contains(errOut, s) {
			t.Errorf("stderr lacks %q:\n%s", s, errOut)
		}
	}
	if strings.Contains(errOut, "HopStarted") {
		t.Errorf("a hop was started under Deny:\n%s", errOut)
	}
}
