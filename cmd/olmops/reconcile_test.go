//go:build !olmops_cli

package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
)

// answer stands in for the controller (whose side reconciler's lifecycle
// test covers): it records each new reconcile request of key as handled,
// with Ready set to ready, until the test ends.
func answer(t *testing.T, key client.ObjectKey, ready metav1.ConditionStatus) {
	c := kube.Env(t).Client
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	done := make(chan struct{})
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		_ = wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			obj := &v1alpha1.Repository{}
			if err := c.Get(ctx, key, obj); err != nil {
				return false, nil
			}
			at := obj.Annotations[v1alpha1.ReconcileRequestAnnotation]
			if obj.Spec.Suspend || at == "" || at == obj.Status.LastHandledReconcileAt {
				return false, nil
			}
			obj.Status.LastHandledReconcileAt = at
			meta.SetStatusCondition(&obj.Status.Conditions, metav1.Condition{Type: v1alpha1.ReadyCondition, Status: ready,
				Reason: "Tested", Message: "as the test said"})
			_ = c.Status().Update(ctx, obj)
			return false, nil
		})
	}()
}

func TestReconcileSuspendResume(t *testing.T) {
	env := kube.Env(t)
	kc := envKubeconfig(t)
	ns := env.NewNamespace(t)
	repo := newRepository(t, ns, "staging", v1alpha1.RepositorySpec{URL: "https://git.example.com/fleet.git", Cluster: "staging"})
	key := client.ObjectKeyFromObject(repo)
	run := func(t *testing.T, wantCode int, wantOut string, args ...string) {
		t.Helper()
		out, errOut, code := runCLI(t, append(args, "--kubeconfig", kc, "-n", ns)...)
		if code != wantCode || !strings.Contains(out+errOut, wantOut) {
			t.Errorf("olmops %s: exit %d, want %d with %q\n%s%s", strings.Join(args, " "), code, wantCode, wantOut, out, errOut)
		}
	}
	get := func(t *testing.T) *v1alpha1.Repository {
		obj := &v1alpha1.Repository{}
		if err := env.Client.Get(t.Context(), key, obj); err != nil {
			t.Fatal(err)
		}
		return obj
	}

	t.Run("no controller answers", func(t *testing.T) {
		run(t, exitError, "did not handle the request within 1s", "reconcile", "repository", "staging", "--timeout", "1s")
	})
	t.Run("suspend", func(t *testing.T) {
		run(t, exitOK, "repository "+key.String()+" suspended", "suspend", "repository", "staging")
		if !get(t).Spec.Suspend {
			t.Error("spec.suspend is not set")
		}
	})
	t.Run("reconcile refuses a suspended repository", func(t *testing.T) {
		run(t, exitError, "is suspended: olmops resume repository staging -n "+ns, "reconcile", "repository", "staging")
	})
	t.Run("resume waits for the pass", func(t *testing.T) {
		answer(t, key, metav1.ConditionTrue)
		run(t, exitOK, "✔ repository "+key.String()+": Ready=True Tested: as the test said", "resume", "repo", "staging")
		if obj := get(t); obj.Spec.Suspend || obj.Status.LastHandledReconcileAt == "" {
			t.Errorf("after resume: suspend %v, lastHandledReconcileAt %q", obj.Spec.Suspend, obj.Status.LastHandledReconcileAt)
		}
	})
	t.Run("a pass that ends not ready", func(t *testing.T) {
		answer(t, key, metav1.ConditionFalse)
		run(t, exitFindings, "✗ repository "+key.String()+": Ready=False Tested", "reconcile", "repository", "staging")
	})
	t.Run("unknown repository", func(t *testing.T) {
		run(t, exitError, `repository `+ns+`/nope: repositories.olmops.io "nope" not found`, "reconcile", "repository", "nope")
	})
	t.Run("a Planner too", func(t *testing.T) {
		pl := &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fleet"},
			Spec: v1alpha1.PlannerSpec{URL: "https://git.example.com/fleet.git"}}
		if err := env.Client.Create(t.Context(), pl); err != nil {
			t.Fatal(err)
		}
		run(t, exitOK, "planner "+ns+"/fleet suspended", "suspend", "planner", "fleet")
		run(t, exitError, "is suspended: olmops resume planner fleet -n "+ns, "reconcile", "planner", "fleet")
		run(t, exitOK, "reconcile of planner "+ns+"/fleet requested", "resume", "planner", "fleet", "--wait=false")
		got := &v1alpha1.Planner{}
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(pl), got); err != nil {
			t.Fatal(err)
		}
		if got.Spec.Suspend || got.Annotations[v1alpha1.ReconcileRequestAnnotation] == "" {
			t.Errorf("after resume: suspend %v, annotations %v", got.Spec.Suspend, got.Annotations)
		}
	})
}
