package plan

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/olmops/olmops/api/v1alpha1"
)

// TestPromotion is the promotion rule: a follower moves only to what the
// clusters it follows have run healthy for the soak time, at most.
func TestPromotion(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	soaked, fresh := now.Add(-25*time.Hour), now.Add(-time.Hour)
	ev := func(cluster, bundle string, h Health, since time.Time) Evidence {
		desc := "etcd.v" + bundle + " installed · healthy"
		if h == Failing {
			desc = "etcd.v" + bundle + " installed · unhealthy: Deployment etcd-operator: 0/1 available"
		}
		return Evidence{Cluster: cluster, Key: Key{"ops", "etcd"}, Package: "etcd", Bundle: "etcd.v" + bundle, Health: h, Description: desc, Since: since}
	}
	tests := []struct {
		name      string
		installed bool // etcd.v0.9.0 committed; else a fresh install
		after     []string
		evidence  []Evidence
		// wantTo is the planned target; "" when nothing changes.
		wantTo string
		// wantHold is a substring of the hold's message; "" for none.
		wantHold    string
		wantStopped bool
		// wantUntil is when the hold ends by itself; zero when it waits
		// for a report to change.
		wantUntil time.Time
		// wantEvidence is a substring of the plan's promotion evidence.
		wantEvidence string
	}{{
		name: "soaked: the target moves", installed: true, after: []string{"staging"},
		evidence: []Evidence{ev("staging", "0.9.4", Healthy, soaked)},
		wantTo:   "etcd.v0.9.4", wantEvidence: "staging: etcd.v0.9.4 healthy since 2026-11-27T11:00:00Z (soak 24h)",
	}, {
		name: "not soaked: stays", installed: true, after: []string{"staging"},
		evidence:  []Evidence{ev("staging", "0.9.4", Healthy, fresh)},
		wantHold:  "waiting for promotion: staging has etcd.v0.9.4 healthy since 2026-11-28T11:00:00Z (soak 24h, until 2026-11-29T11:00:00Z)",
		wantUntil: fresh.Add(24 * time.Hour),
	}, {
		name: "two soaking: until the later ends", installed: true, after: []string{"staging", "canary"},
		evidence:  []Evidence{ev("staging", "0.9.4", Healthy, fresh), ev("canary", "0.9.4", Healthy, fresh.Add(30*time.Minute))},
		wantHold:  "waiting for promotion: staging has etcd.v0.9.4 healthy since",
		wantUntil: fresh.Add(24*time.Hour + 30*time.Minute),
	}, {
		name: "one soaking, one silent: no end known", installed: true, after: []string{"staging", "canary"},
		evidence: []Evidence{ev("staging", "0.9.4", Healthy, fresh)},
		wantHold: "canary reports nothing of etcd yet",
	}, {
		name: "since unknown: stays", installed: true, after: []string{"staging"},
		evidence: []Evidence{ev("staging", "0.9.4", Healthy, time.Time{})},
		wantHold: "staging has etcd.v0.9.4 healthy, since when unknown (soak 24h)",
	}, {
		name: "failed: the wave stops", installed: true, after: []string{"staging"},
		evidence: []Evidence{ev("staging", "0.9.4", Failing, soaked)},
		wantHold: "promotion stopped: staging: failed: etcd.v0.9.4 installed · unhealthy: Deployment etcd-operator: 0/1 available", wantStopped: true,
	}, {
		name: "applying: waits", installed: true, after: []string{"staging"},
		evidence: []Evidence{{Cluster: "staging", Package: "etcd", Bundle: "etcd.v0.9.4", Health: Pending, Description: "applying etcd.v0.9.4 (hop 1/2)", Since: soaked}},
		wantHold: "waiting for promotion: staging: applying etcd.v0.9.4 (hop 1/2)",
	}, {
		name: "nothing reported: waits", installed: true, after: []string{"staging"},
		wantHold: "waiting for promotion: staging reports nothing of etcd yet",
	}, {
		name: "an older version soaked: at most that", installed: true, after: []string{"staging"},
		evidence: []Evidence{ev("staging", "0.9.2", Healthy, soaked)},
		wantTo:   "etcd.v0.9.2", wantEvidence: "promoted at most to etcd.v0.9.2, what the followed clusters have soaked (the catalogs offer etcd.v0.9.4)",
	}, {
		name: "the installed version soaked: stays", installed: true, after: []string{"staging"},
		evidence: []Evidence{ev("staging", "0.9.0", Healthy, soaked)},
		wantHold: "no newer than the installed etcd.v0.9.0",
	}, {
		name: "two followed: the older one caps", installed: true, after: []string{"staging", "canary"},
		evidence: []Evidence{ev("staging", "0.9.4", Healthy, soaked), ev("canary", "0.9.2", Healthy, soaked)},
		wantTo:   "etcd.v0.9.2", wantEvidence: "canary: etcd.v0.9.2 healthy since",
	}, {
		name: "two followed: one failing stops it", installed: true, after: []string{"staging", "canary"},
		evidence: []Evidence{ev("staging", "0.9.4", Healthy, soaked), ev("canary", "0.9.4", Failing, soaked)},
		wantHold: "promotion stopped: canary: failed", wantStopped: true,
	}, {
		// prod follows canary, which follows staging: staging having soaked
		// the target says nothing for prod until canary has too.
		name: "chain of three: only the cluster followed counts", installed: true, after: []string{"canary"},
		evidence: []Evidence{ev("staging", "0.9.4", Healthy, soaked), ev("canary", "0.9.4", Healthy, fresh)},
		wantHold: "waiting for promotion: canary has etcd.v0.9.4 healthy since", wantUntil: fresh.Add(24 * time.Hour),
	}, {
		name: "chain of three: canary soaked, prod moves", after: []string{"canary"}, installed: true,
		evidence: []Evidence{ev("staging", "0.9.4", Healthy, fresh), ev("canary", "0.9.4", Healthy, soaked)},
		wantTo:   "etcd.v0.9.4", wantEvidence: "canary: etcd.v0.9.4 healthy since 2026-11-27T11:00:00Z",
	}, {
		name: "fresh install, soaked: installs", after: []string{"staging"},
		evidence: []Evidence{ev("staging", "0.9.2", Healthy, soaked)},
		wantTo:   "etcd.v0.9.2", wantEvidence: "staging: etcd.v0.9.2 healthy",
	}, {
		name: "fresh install, not soaked: nothing planned", after: []string{"staging"},
		evidence: []Evidence{ev("staging", "0.9.4", Healthy, fresh)},
		wantHold: "waiting for promotion: staging has etcd.v0.9.4 healthy since", wantUntil: fresh.Add(24 * time.Hour),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := etcdFixture()
			var committed map[Key]*Committed
			if tt.installed {
				in := f.input(t, nil)
				in.Promotion = &Promotion{After: []string{"lab"}, Now: now, Evidence: []Evidence{ev("lab", "0.9.0", Healthy, soaked)}}
				committed = commit(t, plan(t, in))
				if p := committed[Key{"ops", "etcd"}]; p == nil || p.Plan.Spec.To.Name != "etcd.v0.9.0" {
					t.Fatalf("setup: committed %+v", committed)
				}
			}
			in := f.input(t, committed)
			in.Promotion = &Promotion{After: tt.after, Soak: 24 * time.Hour, Now: now, Evidence: tt.evidence}
			res := plan(t, in)
			var got *Plan
			for i := range res.Plans {
				if res.Plans[i].Key == (Key{"ops", "etcd"}) && res.Plans[i].State != UpToDate {
					got = &res.Plans[i]
				}
			}
			switch {
			case tt.wantTo == "" && got != nil:
				t.Errorf("planned %s %s, want nothing", got.State, got.File.Spec.To.Name)
			case tt.wantTo != "" && got == nil:
				t.Fatalf("nothing planned, want %s; holds %+v", tt.wantTo, res.Holds)
			case tt.wantTo != "" && got.File.Spec.To.Name != tt.wantTo:
				t.Errorf("planned %s, want %s", got.File.Spec.To.Name, tt.wantTo)
			}
			if got != nil && !strings.Contains(strings.Join(got.Promotion, "\n"), tt.wantEvidence) {
				t.Errorf("evidence %q, want %q in it", got.Promotion, tt.wantEvidence)
			}
			if tt.wantHold == "" {
				if len(res.Holds) > 0 {
					t.Errorf("holds %+v, want none", res.Holds)
				}
				return
			}
			if len(res.Holds) != 1 || !strings.Contains(res.Holds[0].Message, tt.wantHold) || res.Holds[0].Stopped != tt.wantStopped {
				t.Fatalf("holds %+v, want one with %q (stopped %t)", res.Holds, tt.wantHold, tt.wantStopped)
			}
			if got := res.Holds[0].Until; !got.Equal(tt.wantUntil) {
				t.Errorf("hold until %s, want %s", got, tt.wantUntil)
			}
			if h := res.Holds[0]; h.Key != (Key{"ops", "etcd"}) || h.Target != "etcd.v0.9.4" {
				t.Errorf("hold %+v: want ops/etcd held from etcd.v0.9.4", h)
			}
		})
	}
}

// etcdFixture is a Subscription to etcd (Classic), whose stable channel
// goes 0.9.0 → 0.9.2 → 0.9.4.
func etcdFixture() *fixture {
	f := &fixture{fs: fstest.MapFS{}}
	crd := widgetCRD("EtcdCluster", "              size: {type: integer}")
	f.bundle("etcd", "0.9.0", "", []string{"AllNamespaces"}, crd)
	f.bundle("etcd", "0.9.2", "0.9.0", []string{"AllNamespaces"}, crd)
	f.bundle("etcd", "0.9.4", "0.9.2", []string{"AllNamespaces"}, crd)
	f.sub("etcd", subscriptionOf("etcd", "ops", "etcd"))
	return f
}

// The proposal shows the evidence that let the change through.
func TestBodyShowsPromotionEvidence(t *testing.T) {
	p := &Proposal{
		Cluster: v1alpha1.Cluster{Name: "prod"},
		Main: Plan{Key: Key{Namespace: "ops", Name: "etcd"}, Dir: "clusters/prod/plans/ops/etcd", State: Install,
			File: &v1alpha1.InstallPlan{Spec: v1alpha1.InstallPlanSpec{
				Package: "etcd", To: v1alpha1.PlanBundle{Name: "etcd.v0.9.4", Version: "0.9.4"},
				Path: []v1alpha1.PlanHop{{PlanBundle: v1alpha1.PlanBundle{Name: "etcd.v0.9.4"}, Edge: "install"}},
			}},
			Promotion: []string{"staging: etcd.v0.9.4 healthy since 2026-11-27T11:00:00Z (soak 24h)"}},
	}
	p.Plans = []Plan{p.Main}
	want := "### Promotion\n\n- staging: etcd.v0.9.4 healthy since 2026-11-27T11:00:00Z (soak 24h)\n"
	if body := p.Body(); !strings.Contains(body, want) {
		t.Errorf("body lacks %q:\n%s", want, body)
	}
}

// Evidence that could not be read holds every move, saying why.
func TestPromotionUnread(t *testing.T) {
	in := etcdFixture().input(t, nil)
	in.Promotion = &Promotion{After: []string{"staging"}, Unread: "the statuses of staging are not read without a forge",
		Evidence: []Evidence{{Cluster: "staging", Package: "etcd", Bundle: "etcd.v0.9.4", Health: Healthy}}}
	res := plan(t, in)
	if len(res.Changed()) != 0 || len(res.Holds) != 1 || res.Holds[0].Message != "waiting for promotion: the statuses of staging are not read without a forge" {
		t.Errorf("changed %d, holds %+v; want etcd held, saying why", len(res.Changed()), res.Holds)
	}
}
