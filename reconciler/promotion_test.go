package reconciler

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/internal/kubetest"
)

// promotionSoak is prod-east's soak after staging in these tests.
const promotionSoak = 2 * time.Second

// Promotion end to end, both controllers of one manager: staging's
// Repository applies the plan the Planner committed for it and posts its
// status; the Planner proposes prod-east's etcd only once staging reports
// it healthy for the soak, and never while staging reports it failing.
// Its interval is hours: staging's reports wake it.
func TestPromotionEndToEnd(t *testing.T) {
	for _, healthy := range []bool{true, false} {
		t.Run(map[bool]string{true: "staging healthy: prod proposed after the soak", false: "staging failing: the wave stops"}[healthy], func(t *testing.T) {
			f := promotionFleet(t, healthy)
			staging := f.repository(t, "staging")
			if !healthy {
				// Nothing plays the Deployment controller: etcd never
				// becomes available, and staging says so after a second.
				repo := &v1alpha1.Repository{}
				if err := f.env.Client.Get(t.Context(), staging, repo); err != nil {
					t.Fatal(err)
				}
				repo.Spec.HealthTimeout = metav1.Duration{Duration: time.Second}
				if err := f.env.Client.Update(t.Context(), repo); err != nil {
					t.Fatal(err)
				}
			}
			key := f.planner(t, staging.Namespace)

			// The Planner commits staging's plan (Automatic) and holds
			// prod-east's etcd: staging has reported nothing yet.
			held := f.promotionHeld(t, key, v1alpha1.PromotionWaitingReason, "prod-east/etcd-system/etcd: etcd stays: waiting for promotion: staging")
			if !meta.IsStatusConditionTrue(held.Status.Conditions, v1alpha1.ReadyCondition) {
				t.Errorf("a Planner holding a follower is not Ready: %+v", held.Status.Conditions)
			}
			if _, ok := f.gh.PR(1); ok {
				t.Fatal("prod-east proposed before staging reported")
			}
			carrier := f.carrier(t, "staging", "etcd-system", "etcd")
			if carrier == "" {
				t.Fatal("the Planner committed no plan for staging")
			}
			f.push(t) // staging's Repository applies it

			ctxEtcd := commitstatus.Context("staging", "etcd-system", "etcd")
			if !healthy {
				eventually(t, "staging reports etcd failing", func() (bool, string) {
					s, _ := f.githubStatus(carrier, ctxEtcd)
					return s.State == "failure", fmt.Sprintf("%+v", s)
				})
				held := f.promotionHeld(t, key, v1alpha1.PromotionStoppedReason, "prod-east/etcd-system/etcd: etcd stays: promotion stopped: staging: failed: ")
				if c := meta.FindStatusCondition(held.Status.Conditions, v1alpha1.PromotionHeldCondition); !strings.Contains(c.Message, "unhealthy") {
					t.Errorf("PromotionHeld %q does not say why staging fails", c.Message)
				}
				if _, ok := f.gh.PR(1); ok {
					t.Error("prod-east proposed while staging fails")
				}
				return
			}
			var (
				since  time.Time
				bundle string
			)
			eventually(t, "staging reports etcd healthy", func() (bool, string) {
				s, _ := f.githubStatus(carrier, ctxEtcd)
				since, bundle = s.CreatedAt, strings.TrimSuffix(s.Description, " installed · healthy")
				return s.State == "success", fmt.Sprintf("%+v", s)
			})
			if _, ok := f.gh.PR(1); ok {
				t.Fatal("prod-east proposed as soon as staging reported healthy, before the soak")
			}
			eventually(t, "prod-east proposed", func() (bool, string) {
				pr, ok := f.gh.PR(1)
				return ok, fmt.Sprintf("%+v", pr)
			})
			// GitHub dates statuses to the second.
			pr, _ := f.gh.PR(1)
			if until := since.Truncate(time.Second).Add(promotionSoak); pr.CreatedAt.Before(until) {
				t.Errorf("prod-east proposed at %s, before the soak ended at %s", pr.CreatedAt, until)
			}
			want := "- staging: " + bundle + " healthy since "
			if pr.Head != "olmops/prod-east/etcd-system/etcd" || !strings.Contains(pr.Body, want) || !strings.Contains(pr.Body, "(soak 2s)") {
				t.Errorf("PR #1 %s lacks the evidence %q … (soak 2s):\n%s", pr.Head, want, pr.Body)
			}
			eventually(t, "the hold cleared", func() (bool, string) {
				obj := f.getPlanner(t, key)
				return meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.PromotionHeldCondition) == nil && len(obj.Status.Proposals) == 1,
					fmt.Sprintf("%+v", obj.Status)
			})
		})
	}
}

// promotionFleet is the example repository where prod-east follows
// staging with a short soak, etcd its only subscription, on GitHub, with
// a manager running both controllers. healthy plays the Deployment
// controller, so that what staging applies becomes available.
func promotionFleet(t *testing.T, healthy bool) *fleet {
	t.Helper()
	cfg, err := os.ReadFile("../examples/olmops.yaml")
	if err != nil {
		t.Fatal(err)
	}
	follow := fmt.Sprintf("      successorPolicy: Classic\n      promotion: {after: [staging], soak: %s}\n", promotionSoak)
	f := newFleetRepo(t, true, map[string][]byte{
		"olmops.yaml": []byte(strings.Replace(string(cfg), "      successorPolicy: Classic\n", follow, 1)),
		"clusters/prod-east/subscriptions/acme-db.yaml": nil,
	})
	f.startEnv(t)
	f.hook = f.startController(t)
	if healthy {
		t.Cleanup(kubetest.Rollout(context.Background(), f.env.Client, "", 20*time.Millisecond))
	}
	return f
}

// planner creates a Planner of the fleet in namespace ns, which holds the
// Secrets f.repository made, planning every 5h: only staging's reports
// (its Repository's status, in the same manager) and the end of a soak
// wake it within a test.
func (f *fleet) planner(t *testing.T, ns string) client.ObjectKey {
	t.Helper()
	obj := &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fleet"}, Spec: v1alpha1.PlannerSpec{
		URL: f.url, Interval: metav1.Duration{Duration: 5 * time.Hour},
		SecretRef: &v1alpha1.LocalObjectReference{Name: "git"},
		Forge: &v1alpha1.ForgeSpec{Type: v1alpha1.ForgeGitHub, Owner: "acme", Repo: "fleet", BaseURL: f.gh.URL,
			TokenSecretRef: &v1alpha1.LocalObjectReference{Name: "github"}},
	}}
	if err := f.env.Client.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	return client.ObjectKeyFromObject(obj)
}

func (f *fleet) getPlanner(t *testing.T, key client.ObjectKey) *v1alpha1.Planner {
	t.Helper()
	obj := &v1alpha1.Planner{}
	if err := f.env.Client.Get(t.Context(), key, obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

// promotionHeld waits for the Planner to hold a follower for reason,
// with msg in the condition's message.
func (f *fleet) promotionHeld(t *testing.T, key client.ObjectKey, reason, msg string) *v1alpha1.Planner {
	t.Helper()
	var obj *v1alpha1.Planner
	eventually(t, "PromotionHeld "+reason, func() (bool, string) {
		obj = f.getPlanner(t, key)
		c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.PromotionHeldCondition)
		return c != nil && c.Status == metav1.ConditionTrue && c.Reason == reason && strings.Contains(c.Message, msg),
			fmt.Sprintf("%+v", obj.Status.Conditions)
	})
	return obj
}
