package planning_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/internal/gittest"
)

// The end of a soak starts a pass by itself: with an interval of an hour,
// prod-east's etcd, held only by staging's soak, is proposed when the soak
// ends, and the Planner says when that will be while it waits.
func TestSoakEndPlans(t *testing.T) {
	const soak = 10 * time.Second
	f := newFleetOnly(t, func(files map[string][]byte) {
		delete(files, "clusters/prod-east/subscriptions/acme-db.yaml")
		files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "      successorPolicy: Classic\n",
			fmt.Sprintf("      successorPolicy: Classic\n      promotion: {after: [staging], soak: %s}\n", soak), 1))
	})
	f.startManager(t, nil)
	f.planner(t)
	f.planned(t) // staging's plan committed; prod-east waits for its report

	// staging's controller reports etcd healthy on the commit that
	// carried its plan, as the Repository controller would.
	const dir = "clusters/staging/plans/etcd-system/etcd"
	carrier := strings.TrimSpace(gittest.Git(t, f.dir, "log", "-1", "--format=%H", "main", "--", dir))
	ip, err := v1alpha1.LoadInstallPlan(dir+"/installplan.yaml", []byte(gittest.Git(t, f.dir, "show", "main:"+dir+"/installplan.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	healthy := commitstatus.Report{Phase: commitstatus.Installed, Bundle: ip.Spec.To.Name, Healthy: true}
	gh, err := github.New(t.Context(), github.Options{Owner: "acme", Repo: "fleet", Token: ghToken, BaseURL: f.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	st := gitsource.Status{Context: commitstatus.Context("staging", "etcd-system", "etcd"), State: healthy.State(), Description: healthy.Description()}
	if err := gh.SetStatus(t.Context(), carrier, st); err != nil {
		t.Fatal(err)
	}

	// A person asks for a pass: it sees the soak and waits for its end.
	f.edit(t, func(obj *v1alpha1.Planner) {
		obj.Annotations = map[string]string{v1alpha1.ReconcileRequestAnnotation: "staging-reported"}
	})
	var until time.Time
	eventually(t, "held until the soak ends", func() (bool, string) {
		obj := f.get(t)
		c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.PromotionHeldCondition)
		if obj.Status.LastHandledReconcileAt != "staging-reported" || c == nil || obj.Status.NextPromotionTime == nil {
			return false, fmt.Sprintf("%+v", obj.Status)
		}
		until = obj.Status.NextPromotionTime.Time
		return strings.Contains(c.Message, "(soak 10s, until "), c.Message
	})
	if _, ok := f.gh.PR(1); ok {
		t.Fatal("prod-east proposed during the soak")
	}
	eventually(t, "proposed when the soak ended", func() (bool, string) {
		pr, ok := f.gh.PR(1)
		return ok, fmt.Sprintf("%+v", pr)
	})
	if pr, _ := f.gh.PR(1); pr.CreatedAt.Before(until) {
		t.Errorf("proposed at %s, before the soak ended at %s", pr.CreatedAt, until)
	}
	eventually(t, "the hold cleared", func() (bool, string) {
		obj := f.get(t)
		_, ok := proposal(obj, "olmops/prod-east/etcd-system/etcd")
		return ok && obj.Status.NextPromotionTime == nil && meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.PromotionHeldCondition) == nil,
			fmt.Sprintf("%+v", obj.Status)
	})
}
