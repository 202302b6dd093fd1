package planner

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// clone makes a person's clone of f with git itself, its origin the
// server's URL without credentials (the planner gets them as Auth).
func (f *fleet) clone(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	withAuth := strings.Replace(f.url, "http://", "http://olmops:s3cret@", 1)
	gittest.Git(t, dir, "clone", "--quiet", withAuth, ".")
	gittest.Git(t, dir, "remote", "set-url", "origin", f.url)
	return dir
}

// planIn runs a planner on the clone in dir, as `olmops plan --repo dir`
// would, and returns its error.
func (f *fleet) planIn(t *testing.T, dir string, push bool) (*Report, error) {
	t.Helper()
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: dir, Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
	if err != nil {
		t.Fatal(err)
	}
	return New(Options{Repo: repo, Push: push, Version: "v0.0.0-test", Backoff: time.Millisecond, Forge: f.forge(t)}).Run(t.Context())
}

func (f *fleet) remoteLog(t *testing.T) string {
	t.Helper()
	return gittest.Git(t, f.dir, "log", "--format=%s", "main")
}

// `plan` then `plan --push` in a clone: the second run must push what
// the first committed locally, not find nothing to do and exit 0.
func TestPlanPushAfterLocalPlan(t *testing.T) {
	f := newFleet(t, examples(t))
	dir := f.clone(t)
	if _, err := f.planIn(t, dir, false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.planIn(t, dir, true); err != nil {
		t.Fatal(err)
	}
	if log := f.remoteLog(t); planCommits(log, "staging") != 1 {
		t.Fatalf("remote main after plan, plan --push:\n%s", log)
	}
	local := strings.TrimSpace(gittest.Git(t, dir, "rev-parse", "main"))
	remote := strings.TrimSpace(gittest.Git(t, f.dir, "rev-parse", "main"))
	if local != remote {
		t.Errorf("local main %s is not what was pushed (%s)", local, remote)
	}
	if st := gittest.Git(t, dir, "status", "--porcelain"); st != "" {
		t.Errorf("the worktree does not follow main:\n%s", st)
	}
}

// A clone behind its origin plans on the remote's head and fast-forwards.
func TestPlanPushFromStaleClone(t *testing.T) {
	files := examples(t)
	f := newFleet(t, files)
	dir := f.clone(t)
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"README.md": []byte("moved on\n")}, Message: "someone else"})
	if _, err := f.planIn(t, dir, true); err != nil {
		t.Fatal(err)
	}
	log := f.remoteLog(t)
	if planCommits(log, "staging") != 1 || !strings.Contains(log, "someone else\n") {
		t.Fatalf("remote main:\n%s", log)
	}
	if local, remote := gittest.Git(t, dir, "rev-parse", "main"), gittest.Git(t, f.dir, "rev-parse", "main"); local != remote {
		t.Errorf("local main %s, remote %s", local, remote)
	}
}

// A clone holding a commit of a person's that origin lacks is refused:
// olmops neither pushes nor drops someone's unpushed work.
func TestPlanPushRefusesForeignLocalCommits(t *testing.T) {
	f := newFleet(t, examples(t))
	dir := f.clone(t)
	gittest.Git(t, dir, "commit", "--quiet", "--allow-empty", "-m", "my own work")
	mine := gittest.Git(t, dir, "rev-parse", "main")
	_, err := f.planIn(t, dir, true)
	if err == nil || !strings.Contains(err.Error(), "my own work") {
		t.Fatalf("err = %v, want a refusal naming the local commit", err)
	}
	if now := gittest.Git(t, dir, "rev-parse", "main"); now != mine {
		t.Error("the local branch was moved")
	}
	if strings.Contains(f.remoteLog(t), "olmops: plan") {
		t.Error("plans were pushed on a refused run")
	}
}

// Two clones and two planners sharing one cache folder, all pushing at
// once: every change lands once, none is lost, one proposal.
func TestPlanPushConcurrentClonesAndCache(t *testing.T) {
	f := newFleet(t, examples(t))
	clones := []string{f.clone(t), f.clone(t)}
	cache := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for _, dir := range clones {
		wg.Go(func() {
			_, err := f.planIn(t, dir, true)
			errs <- err
		})
	}
	for range 2 {
		wg.Go(func() {
			repo, err := gitsource.Open(t.Context(), gitsource.Options{URL: f.url, CacheDir: cache, Exclusive: true, Auth: gitsource.Auth{Username: "olmops", Password: "s3cret"}})
			if err == nil {
				_, err = New(Options{Repo: repo, Push: true, Version: "v0.0.0-test", Backoff: time.Millisecond, Forge: f.forge(t)}).Run(t.Context())
				repo.Close()
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	log := f.remoteLog(t)
	// prod-east commits nothing: acme-db waits in etcd's proposal.
	for c, want := range map[string]int{"prod-east": 0, "staging": 1} {
		if n := planCommits(log, c); n != want {
			t.Errorf("%s's plan on the remote %d times, want %d:\n%s", c, n, want, log)
		}
	}
	if _, dup := f.gh.PR(2); dup {
		t.Error("two pull requests for one change")
	}
	for _, dir := range clones {
		// Each clone converges on the remote once it plans again.
		if _, err := f.planIn(t, dir, true); err != nil {
			t.Fatal(err)
		}
		if local, remote := gittest.Git(t, dir, "rev-parse", "main"), gittest.Git(t, f.dir, "rev-parse", "main"); local != remote {
			t.Errorf("clone %s: local main %s, remote %s", dir, local, remote)
		}
	}
}
