package planner

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/plan"
)

// promotionFleet is the example repository where prod-east follows
// staging with a day's soak, etcd its only subscription.
func promotionFleet(t *testing.T) *fleet {
	files := examples(t)
	delete(files, "clusters/prod-east/subscriptions/acme-db.yaml")
	cfg := string(files["olmops.yaml"])
	cfg = strings.Replace(cfg, "      successorPolicy: Classic\n", "      successorPolicy: Classic\n      promotion: {after: [staging], soak: 24h}\n", 1)
	files["olmops.yaml"] = []byte(cfg)
	return newFleet(t, files)
}

// planAt runs a planner whose clock reads now.
func (f *fleet) planAt(t *testing.T, now time.Time) *Report {
	t.Helper()
	repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: f.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	p := New(Options{Repo: repo, Push: true, Version: "v0.0.0-test", Backoff: time.Millisecond, Forge: f.forge(t), Now: func() time.Time { return now }})
	report, err := p.Run(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Err(); err != nil {
		t.Fatal(err)
	}
	return report
}

// report posts what staging's controller would on the commit that carried
// its etcd plan, and returns the bundle the plan installs.
func (f *fleet) reportStaging(t *testing.T, healthy bool) string {
	t.Helper()
	dir := "clusters/staging/plans/etcd-system/etcd"
	carrier := strings.TrimSpace(gittest.Git(t, f.dir, "log", "-1", "--format=%H", "main", "--", dir))
	ip, err := v1alpha1.LoadInstallPlan(dir+"/installplan.yaml", []byte(f.show(t, "main", dir+"/installplan.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	bundle := ip.Spec.To.Name
	r := commitstatus.Report{Phase: commitstatus.Installed, Bundle: bundle, Healthy: healthy, Reason: "Deployment etcd-operator: 0/1 available"}
	if healthy {
		r.Reason = ""
	}
	gh, err := github.New(t.Context(), github.Options{Owner: "acme", Repo: "fleet", Token: ghToken, BaseURL: f.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	st := gitsource.Status{Context: commitstatus.Context("staging", "etcd-system", "etcd"), State: r.State(), Description: r.Description()}
	if err := gh.SetStatus(t.Context(), carrier, st); err != nil {
		t.Fatal(err)
	}
	return bundle
}

func holds(r *Report, cluster string) []plan.Hold {
	for _, c := range r.Clusters {
		if c.Name == cluster {
			return c.Holds
		}
	}
	return nil
}

// staging's controller reports etcd healthy: prod-east's proposal opens
// only once a day has passed since, and shows the evidence.
func TestPromotionAfterSoak(t *testing.T) {
	f := promotionFleet(t)
	now := time.Now()
	r := f.planAt(t, now)
	if h := holds(r, "prod-east"); len(h) != 1 || h[0].Message != "waiting for promotion: staging reports nothing of etcd yet" {
		t.Fatalf("before staging reported: holds %+v", h)
	}
	if _, ok := f.gh.PR(1); ok {
		t.Fatal("a proposal for prod-east before staging reported")
	}
	bundle := f.reportStaging(t, true)
	r = f.planAt(t, now)
	if h := holds(r, "prod-east"); len(h) != 1 || !strings.Contains(h[0].Message, "waiting for promotion: staging has "+bundle+" healthy since ") || !strings.Contains(h[0].Message, "(soak 24h, until ") {
		t.Fatalf("before the soak: holds %+v", h)
	}
	if _, ok := f.gh.PR(1); ok {
		t.Fatal("a proposal for prod-east before the soak ended")
	}
	r = f.planAt(t, now.Add(25*time.Hour))
	if h := holds(r, "prod-east"); len(h) != 0 {
		t.Fatalf("after the soak: holds %+v", h)
	}
	pr, ok := f.gh.PR(1)
	if !ok || pr.Head != "olmops/prod-east/etcd-system/etcd" {
		t.Fatalf("after the soak: PR #1 = %+v, %t", pr, ok)
	}
	if want := "- staging: " + bundle + " healthy since "; !strings.Contains(pr.Body, "### Promotion") || !strings.Contains(pr.Body, want) {
		t.Errorf("PR body lacks the evidence %q:\n%s", want, pr.Body)
	}
}

// staging reports etcd unhealthy: no proposal for prod-east, whatever the
// time, and the report says why.
func TestPromotionStopsOnFailure(t *testing.T) {
	f := promotionFleet(t)
	f.planAt(t, time.Now())
	bundle := f.reportStaging(t, false)
	r := f.planAt(t, time.Now().Add(48*time.Hour))
	h := holds(r, "prod-east")
	want := "promotion stopped: staging: failed: " + bundle + " installed · unhealthy: Deployment etcd-operator: 0/1 available"
	if len(h) != 1 || !h[0].Stopped || h[0].Message != want {
		t.Fatalf("holds %+v, want one stopped: %q", h, want)
	}
	if _, ok := f.gh.PR(1); ok {
		t.Error("a proposal for prod-east while staging fails")
	}
}

// The git-only forge: staging's status is a git note, dated when it was
// set; prod-east's plan branch appears only after the soak.
func TestPromotionOnGitNotes(t *testing.T) {
	files := examples(t)
	delete(files, "clusters/prod-east/subscriptions/acme-db.yaml")
	files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "      successorPolicy: Classic\n", "      successorPolicy: Classic\n      promotion: {after: [staging], soak: 1h}\n", 1))
	dir, repo := localRepo(t, files)
	now := time.Now()
	run := localRun(t, repo)
	run(now)
	reportStagingNote(t, dir, repo)
	if h := holds(run(now), "prod-east"); len(h) != 1 || !strings.Contains(h[0].Message, "(soak 1h, until ") {
		t.Fatalf("before the soak: holds %+v", h)
	}
	r := run(now.Add(2 * time.Hour))
	if h := holds(r, "prod-east"); len(h) != 0 {
		t.Fatalf("after the soak: holds %+v", h)
	}
	if a := actions(r)["prod-east/etcd-system/etcd"]; a != ActionProposed {
		t.Errorf("after the soak: prod-east etcd %q, want proposed", a)
	}
}

// A cluster planned after the one it follows, in the same run, sees that
// cluster's branch as the run left it: staging's plan is refreshed (its
// subscription changed), so its soaked status is on a commit that no
// longer carries the plan, and prod-east waits. Planned ahead of staging's
// commit, prod-east would have been proposed on stale evidence.
func TestPromotionSeesCommitsOfTheSameRun(t *testing.T) {
	files := examples(t)
	delete(files, "clusters/prod-east/subscriptions/acme-db.yaml")
	cfg := strings.Replace(string(files["olmops.yaml"]), "      successorPolicy: Classic\n", "      successorPolicy: Classic\n      promotion: {after: [staging], soak: 1h}\n", 1)
	// staging first: prod-east is planned after staging's commit.
	i, j := strings.Index(cfg, "    - name: prod-east\n"), strings.Index(cfg, "    - name: staging\n")
	files["olmops.yaml"] = []byte(cfg[:i] + cfg[j:] + cfg[i:j])
	dir, repo := localRepo(t, files)
	now := time.Now()
	run := localRun(t, repo)
	run(now)
	reportStagingNote(t, dir, repo)
	const sub = "clusters/staging/subscriptions/etcd.yaml"
	widened := strings.Replace(string(files[sub]), `version: ">=0.9.0 <1.0.0"`, `version: ">=0.9.0 <2.0.0"`, 1)
	if widened == string(files[sub]) {
		t.Fatal("the example's staging subscription changed: update the test")
	}
	if err := os.WriteFile(filepath.Join(dir, sub), []byte(widened), 0o644); err != nil {
		t.Fatal(err)
	}
	gittest.Git(t, dir, "commit", "--quiet", "--all", "-m", "staging: widen etcd")
	r := run(now.Add(2 * time.Hour))
	if a := actions(r)["staging/etcd-system/etcd"]; a != ActionCommitted {
		t.Fatalf("staging etcd %q, want committed (refreshed)", a)
	}
	if h := holds(r, "prod-east"); len(h) != 1 || h[0].Message != "waiting for promotion: staging reports nothing of etcd yet" {
		t.Fatalf("prod-east holds %+v, want one waiting for staging's refreshed plan", h)
	}
	if a := actions(r)["prod-east/etcd-system/etcd"]; a == ActionProposed {
		t.Error("prod-east proposed on the status of staging's replaced plan commit")
	}
}

// localRepo is a repository on disk, without origin, holding files.
func localRepo(t *testing.T, files map[string][]byte) (string, *gitsource.Repo) {
	t.Helper()
	dir := gittest.Worktree(t, gittest.Change{Files: files, Message: "desired state"})
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	return dir, repo
}

// localRun plans repo without pushing, its clock at the given time.
func localRun(t *testing.T, repo *gitsource.Repo) func(time.Time) *Report {
	return func(at time.Time) *Report {
		t.Helper()
		r, err := New(Options{Repo: repo, Version: "test", Now: func() time.Time { return at }}).Run(t.Context())
		if err != nil || r.Err() != nil {
			t.Fatal(err, r.Err())
		}
		return r
	}
}

// reportStagingNote sets staging's etcd plan healthy, as a git note on
// the commit that carries it.
func reportStagingNote(t *testing.T, dir string, repo *gitsource.Repo) {
	t.Helper()
	const staging = "clusters/staging/plans/etcd-system/etcd"
	carrier := strings.TrimSpace(gittest.Git(t, dir, "log", "-1", "--format=%H", "main", "--", staging))
	ip, err := v1alpha1.LoadInstallPlan("installplan.yaml", []byte(gittest.Git(t, dir, "show", "main:"+staging+"/installplan.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	healthy := commitstatus.Report{Phase: commitstatus.Installed, Bundle: ip.Spec.To.Name, Healthy: true}
	st := gitsource.Status{Context: commitstatus.Context("staging", "etcd-system", "etcd"), State: healthy.State(), Description: healthy.Description()}
	if err := gitsource.NewGitForge(repo).SetStatus(t.Context(), carrier, st); err != nil {
		t.Fatal(err)
	}
}
