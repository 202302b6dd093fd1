package planner

import (
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

const ghToken = "gh-test-token"

// fleet is a desired-state repository on the git server with a fake
// GitHub in front of it.
type fleet struct {
	dir string
	url string
	gh  *githubtest.Server
}

func newFleet(t *testing.T, files map[string][]byte) *fleet {
	t.Helper()
	name := strings.ReplaceAll(strings.ToLower(t.Name()), "/", "-")
	gitServer.CreateRepo(t, name)
	dir := gitServer.RepoDir(name)
	files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n", 1))
	gittest.Commit(t, dir, "main", gittest.Change{Files: files, Message: "desired state"})
	return &fleet{dir: dir, url: gitServer.RepoURL(name), gh: githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "fleet", Token: ghToken, GitDir: dir})}
}

// plan runs one planner from its own clone, as a CI job would.
func (f *fleet) plan(t *testing.T) *Report {
	t.Helper()
	ctx := t.Context()
	repo, err := gitsource.Open(ctx, gitsource.Options{URL: f.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	p := New(Options{Repo: repo, Push: true, Version: "v0.0.0-test", Backoff: time.Millisecond, Forge: f.forge(t)})
	report, err := p.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Err(); err != nil {
		t.Fatal(err)
	}
	return report
}

// forge is the fake GitHub as olmops.yaml names it.
func (f *fleet) forge(t *testing.T) func(*v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
	return func(r *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
		return github.New(t.Context(), github.Options{Owner: r.Spec.Forge.Owner, Repo: r.Spec.Forge.Repo, Token: ghToken, BaseURL: f.gh.URL})
	}
}

func (f *fleet) show(t *testing.T, rev, path string) string {
	t.Helper()
	return gittest.Git(t, f.dir, "show", rev+":"+path)
}

func (f *fleet) hasPath(t *testing.T, rev, path string) bool {
	t.Helper()
	out := gittest.Git(t, f.dir, "ls-tree", "--name-only", rev, path)
	return strings.TrimSpace(out) != ""
}

func actions(r *Report) map[string]Action {
	out := map[string]Action{}
	for _, c := range r.Clusters {
		for _, p := range c.Plans {
			out[c.Name+"/"+p.Namespace+"/"+p.Name] = p.Action
		}
	}
	return out
}

func TestPlanOnGitHub(t *testing.T) {
	files := examples(t)
	f := newFleet(t, files)

	// First run: Automatic plans are committed, etcd on prod-east (Manual)
	// waits as pull request #1, and acme-db (Automatic), which needs
	// etcd's API, waits with it: OLM approves a namespace as one.
	r := f.plan(t)
	want := map[string]Action{
		"prod-east/etcd-system/acme-db": ActionProposed,
		"prod-east/etcd-system/etcd":    ActionProposed,
		"staging/etcd-system/etcd":      ActionCommitted,
	}
	assertActions(t, r, want)
	const waits = "acme-db waits with etcd: requires etcd's EtcdCluster (etcd.database.coreos.com/v1beta2)"
	if n := note(r, "prod-east/etcd-system/acme-db"); n != waits {
		t.Errorf("acme-db's note = %q, want %q", n, waits)
	}
	if f.hasPath(t, "main", "clusters/prod-east/plans/etcd-system/acme-db") {
		t.Fatal("acme-db is on main while the etcd it needs waits for approval")
	}
	if !f.hasPath(t, "main", "clusters/staging/plans/etcd-system/etcd/manifests/deployment-etcd-operator.yaml") {
		t.Fatal("the Automatic staging plan is not on main")
	}
	if f.hasPath(t, "main", "clusters/prod-east/plans/etcd-system/etcd") {
		t.Fatal("the Manual prod-east plan is on main before anyone approved it")
	}
	pr, ok := f.gh.PR(1)
	if !ok || pr.Title != "install etcd 0.9.2 (prod-east/etcd-system)" || pr.Head != "olmops/prod-east/etcd-system/etcd" || pr.Base != "main" {
		t.Fatalf("PR #1 = %+v", pr)
	}
	for _, s := range []string{"### Approved together", waits, "### Manifest changes of acme-db"} {
		if !strings.Contains(pr.Body, s) {
			t.Errorf("PR #1 body lacks %q:\n%s", s, pr.Body)
		}
	}
	if !f.hasPath(t, pr.HeadSHA, "clusters/prod-east/plans/etcd-system/acme-db/installplan.yaml") {
		t.Error("PR #1 does not carry acme-db's plan")
	}

	// A run with nothing new opens nothing and commits nothing.
	head := gittest.Git(t, f.dir, "rev-parse", "main")
	r = f.plan(t)
	assertActions(t, r, map[string]Action{"prod-east/etcd-system/etcd": ActionProposed, "staging/etcd-system/etcd": ActionNone})
	if now := gittest.Git(t, f.dir, "rev-parse", "main"); now != head {
		t.Fatalf("a no-op run moved main from %s to %s", head, now)
	}
	if _, dup := f.gh.PR(2); dup {
		t.Fatal("a no-op run opened a second pull request")
	}

	// Merge = approve: both plans are on main; the next run proposes the
	// upgrade Classic makes from 0.9.2.
	f.gh.Merge(t, 1)
	for _, sub := range []string{"etcd", "acme-db"} {
		if !f.hasPath(t, "main", "clusters/prod-east/plans/etcd-system/"+sub+"/installplan.yaml") {
			t.Fatalf("merged plan of %s not on main", sub)
		}
	}
	r = f.plan(t)
	pr2, ok := f.gh.PR(2)
	if !ok || pr2.Title != "etcd 0.9.2 → 0.9.4 (prod-east/etcd-system)" {
		t.Fatalf("PR #2 = %+v", pr2)
	}
	for _, s := range []string{"### Path", "`etcdoperator.v0.9.2` → `etcdoperator.v0.9.4`: replaces (channel stable)", "```mermaid", "### Manifest changes", "Deployment etcd-system/etcd-operator", "olmops:plan cluster=prod-east namespace=etcd-system name=etcd to=etcdoperator.v0.9.4"} {
		if !strings.Contains(pr2.Body, s) {
			t.Errorf("PR #2 body lacks %q:\n%s", s, pr2.Body)
		}
	}

	// Close = reject: 0.9.4 is not proposed again.
	f.gh.ClosePR(t, 2)
	r = f.plan(t)
	assertActions(t, r, map[string]Action{"prod-east/etcd-system/etcd": ActionRejected})
	if _, again := f.gh.PR(3); again {
		t.Fatal("a rejected target was proposed again")
	}

	// A newer bundle is a new target: a new pull request.
	withEtcdBundle(t, files, "0.9.6", "0.9.4")
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"catalogs/operatorhub/etcd/catalog.yaml": files["catalogs/operatorhub/etcd/catalog.yaml"]}, Message: "catalog: etcd 0.9.6"})
	r = f.plan(t)
	pr3, ok := f.gh.PR(3)
	if !ok || pr3.Title != "etcd 0.9.2 → 0.9.6 (prod-east/etcd-system)" || pr3.State != "open" {
		t.Fatalf("PR #3 = %+v", pr3)
	}
	assertActions(t, r, map[string]Action{"prod-east/etcd-system/etcd": ActionProposed})
}

// note is the note a run left on one plan ("cluster/namespace/name").
func note(r *Report, key string) string {
	for _, c := range r.Clusters {
		for _, p := range c.Plans {
			if c.Name+"/"+p.Namespace+"/"+p.Name == key {
				return p.Note
			}
		}
	}
	return ""
}

func assertActions(t *testing.T, r *Report, want map[string]Action) {
	t.Helper()
	got := actions(r)
	for k, a := range want {
		if got[k] != a {
			t.Errorf("%s: action %q, want %q (all: %v)", k, got[k], a, got)
		}
	}
}

// The cluster reports Upgradeable=False on the commit that carried the
// installed plan: the upgrade proposal gets a failing olmops/upgradeable
// status, so branch protection holds the merge, and the body quotes it.
func TestPlanHoldsMergeWhileNotUpgradeable(t *testing.T) {
	f := newFleet(t, examples(t))
	f.plan(t)
	f.gh.Merge(t, 1)
	carrier := strings.TrimSpace(gittest.Git(t, f.dir, "log", "-1", "--format=%H", "main", "--", "clusters/prod-east/plans/etcd-system/etcd"))
	report := commitstatus.Report{Phase: commitstatus.Installed, Bundle: "etcdoperator.v0.9.2", Healthy: true, NotUpgradeable: "backup in progress"}
	gh, err := github.New(t.Context(), github.Options{Owner: "acme", Repo: "fleet", Token: ghToken, BaseURL: f.gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	if err := gh.SetStatus(t.Context(), carrier, gitsource.Status{Context: commitstatus.Context("prod-east", "etcd-system", "etcd"), State: report.State(), Description: report.Description()}); err != nil {
		t.Fatal(err)
	}
	f.plan(t)
	pr, _ := f.gh.PR(2)
	var got *githubtest.Status
	for _, s := range f.gh.StatusesFor(pr.HeadSHA) {
		if s.Context == commitstatus.UpgradeableContext {
			got = &s
		}
	}
	if got == nil || got.State != "failure" || !strings.Contains(got.Description, "backup in progress") {
		t.Fatalf("olmops/upgradeable on the proposal = %+v", got)
	}
	if !strings.Contains(pr.Body, "Upgradeable=False: backup in progress") {
		t.Errorf("body does not quote the cluster's state:\n%s", pr.Body)
	}
}

var _ = plumbing.ZeroHash

// Two planners racing on the same repository converge: each change is
// committed once and proposed once.
func TestPlanRace(t *testing.T) {
	f := newFleet(t, examples(t))
	// Each planner reports back over errs: t.Fatal must not run outside
	// the test's goroutine, and a failed planner must fail the test.
	errs := make(chan error, 2)
	for range 2 {
		cache := t.TempDir()
		go func() {
			errs <- func() error {
				ctx := t.Context()
				repo, err := gitsource.Open(ctx, gitsource.Options{URL: f.url, CacheDir: cache, Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
				if err != nil {
					return err
				}
				report, err := New(Options{Repo: repo, Push: true, Version: "v0.0.0-test", Backoff: time.Millisecond,
					Forge: func(r *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
						return github.New(ctx, github.Options{Owner: r.Spec.Forge.Owner, Repo: r.Spec.Forge.Repo, Token: ghToken, BaseURL: f.gh.URL})
					}}).Run(ctx)
				if err != nil {
					return err
				}
				return report.Err()
			}()
		}()
	}
	for range 2 {
		if err := <-errs; err != nil {
			t.Errorf("a racing planner: %v", err)
		}
	}
	log := gittest.Git(t, f.dir, "log", "--format=%s", "main")
	// prod-east commits nothing: acme-db waits in etcd's proposal.
	for c, want := range map[string]int{"prod-east": 0, "staging": 1} {
		if n := planCommits(log, c); n != want {
			t.Errorf("%s's plan committed %d times, want %d:\n%s", c, n, want, log)
		}
	}
	if _, dup := f.gh.PR(2); dup {
		t.Error("the race opened two pull requests")
	}
	if pr, ok := f.gh.PR(1); !ok || pr.State != "open" {
		t.Errorf("PR #1 = %+v", pr)
	}
}

// The git-only forge: proposals are plan branches; merging with git
// approves, deleting the branch rejects.
func TestPlanGitOnly(t *testing.T) {
	files := examples(t)
	name := "gitonly"
	gitServer.CreateRepo(t, name)
	dir := gitServer.RepoDir(name)
	gittest.Commit(t, dir, "main", gittest.Change{Files: files, Message: "desired state"})
	run := func() *Report {
		repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: gitServer.RepoURL(name), CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
		if err != nil {
			t.Fatal(err)
		}
		r, err := New(Options{Repo: repo, Push: true, Version: "test", Backoff: time.Millisecond}).Run(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	run()
	branch := "olmops/prod-east/etcd-system/etcd"
	if strings.TrimSpace(gittest.Git(t, dir, "ls-remote", dir, "refs/heads/"+branch)) == "" {
		t.Fatal("no plan branch on the remote")
	}
	// Approve: merge the branch with git.
	work := t.TempDir()
	gittest.Git(t, work, "clone", "--quiet", dir, ".")
	gittest.Git(t, work, "merge", "--quiet", "--no-edit", "origin/"+branch)
	gittest.Git(t, work, "push", "--quiet", "origin", "main")
	r := run()
	assertActions(t, r, map[string]Action{"prod-east/etcd-system/etcd": ActionProposed})
	if !strings.Contains(gittest.Git(t, dir, "log", "-1", "--format=%s", branch), "etcd 0.9.2 → 0.9.4") {
		t.Fatalf("the branch does not propose the upgrade: %s", gittest.Git(t, dir, "log", "-1", "--format=%s", branch))
	}
	// Reject: delete the branch; 0.9.4 is not proposed again.
	gittest.Git(t, work, "push", "--quiet", "origin", "--delete", branch)
	r = run()
	assertActions(t, r, map[string]Action{"prod-east/etcd-system/etcd": ActionRejected})
	if strings.TrimSpace(gittest.Git(t, dir, "ls-remote", dir, "refs/heads/"+branch)) != "" {
		t.Error("a rejected target was pushed again")
	}
}
