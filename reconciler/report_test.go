package reconciler

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

// Each pass re-applies what is installed. A fresh Syncer stands for a
// restarted controller or another `olmops apply` run: none of them may
// post pending then success again on a commit that already says the
// bundle is installed, nor may their repeats reach the forge.
func TestPostStatusAcrossRestarts(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	commit := strings.TrimSpace(gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"a": []byte("a\n")}, Message: "a"}))
	gh := githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "fleet", Token: "tok", GitDir: dir})
	forge, err := github.New(t.Context(), github.Options{Owner: "acme", Repo: "fleet", Token: "tok", BaseURL: gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	name := commitstatus.Context("staging", "ops", "etcd")
	applying := commitstatus.Report{Phase: commitstatus.Applying, Bundle: "etcd.v1", Hop: 1, Hops: 1}
	installed := commitstatus.Report{Phase: commitstatus.Installed, Bundle: "etcd.v1", Healthy: true}
	for range 3 {
		s := &Syncer{}
		tgt := Target{ID: "ops/fleet", Cluster: "staging", statuses: forge}
		for _, r := range []commitstatus.Report{applying, installed} {
			s.postStatus(t.Context(), tgt, commit, gitsource.Status{Context: name, State: r.State(), Description: r.Description()})
		}
	}
	var got []string
	for _, st := range gh.StatusesFor(commit) {
		got = append(got, st.State+" "+st.Description)
	}
	want := []string{"pending " + applying.Description(), "success " + installed.Description()}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("statuses on the commit after three passes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A subscription's status links to its plan as the carrying commit has it.
func TestPostStatusLinksPlan(t *testing.T) {
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	commit := strings.TrimSpace(gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"a": []byte("a\n")}, Message: "a"}))
	gh := githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "fleet", Token: "tok", GitDir: dir})
	forge, err := github.New(t.Context(), github.Options{Owner: "acme", Repo: "fleet", Token: "tok", BaseURL: gh.URL})
	if err != nil {
		t.Fatal(err)
	}
	s := &Syncer{}
	p := &loadedPlan{dir: "clusters/staging/plans/ops/etcd", namespace: "ops", name: "etcd", carrier: commit}
	s.post(t.Context(), Target{ID: "ops/fleet", Cluster: "staging", statuses: forge}, p,
		commitstatus.Report{Phase: commitstatus.Installed, Bundle: "etcd.v1", Healthy: true})
	sts := gh.StatusesFor(commit)
	want := gh.URL + "/acme/fleet/blob/" + commit + "/clusters/staging/plans/ops/etcd/installplan.yaml"
	if len(sts) != 1 || sts[0].TargetURL != want {
		t.Errorf("statuses %+v, want one linking %s", sts, want)
	}
}
