package planning_test

import (
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
)

// A commit whose olmops.yaml does not read (a misspelt field) stalls the
// Planner, naming the file and line, and leaves the open proposal as it
// was: the configuration decides where proposals go, so nothing is
// proposed from it.
func TestBrokenConfigStalls(t *testing.T) {
	f := newFleet(t)
	cfg := strings.Replace(string(mustFile(t, "../../examples/olmops.yaml")), "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n  clustrs: []\n", 1)
	stalled := f.stallsOn(t, "olmops.yaml", cfg, "a typo in olmops.yaml")
	if !regexp.MustCompile(`olmops\.yaml:\d+`).MatchString(stalled.Message) || !strings.Contains(stalled.Message, "clustrs") {
		t.Errorf("Stalled = %+v, want olmops.yaml:line and the unknown field", stalled)
	}
}

// stallsOn plans the fleet, then commits data at file with message and
// pushes it: the Planner must stall on it, keep PR #1 as it was and open
// no other. It returns the Stalled condition.
func (f *fleet) stallsOn(t *testing.T, file, data, message string) *metav1.Condition {
	t.Helper()
	f.planner(t)
	f.planned(t)
	pr1 := mustPR(t, f.gh, 1)
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{file: []byte(data)}, Message: message})
	f.push(t)
	var stalled *metav1.Condition
	eventually(t, "stalled", func() (bool, string) {
		obj := f.get(t)
		stalled = meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.StalledCondition)
		return stalled != nil && stalled.Status == metav1.ConditionTrue && obj.Status.LastFetchedCommit == f.head(t), fmt.Sprintf("%+v", obj.Status)
	})
	obj := f.get(t)
	if p, ok := proposal(obj, etcdBranch); !ok || p.Number != 1 || obj.Status.LastPlannedCommit == f.head(t) {
		t.Errorf("proposals %+v, last planned %s: want PR #1 kept and the broken head not planned", obj.Status.Proposals, obj.Status.LastPlannedCommit)
	}
	if got, ok := f.gh.PR(1); !ok || got.HeadSHA != pr1.HeadSHA || got.State != "open" {
		t.Errorf("PR #1 changed: %+v, was %+v", got, pr1)
	}
	if _, ok := f.gh.PR(2); ok {
		t.Errorf("%s opened PR #2", message)
	}
	return stalled
}

// A forge that refuses every connection (down, not rate-limited) fails
// the pass with the time of its next attempt; once it answers again, the
// proposal is opened once.
func TestForgeDownRetried(t *testing.T) {
	f := newFleetOnly(t)
	var down atomic.Bool
	down.Store(true)
	var refused atomic.Int32
	hc := &http.Client{Transport: roundTripper(func(req *http.Request) (*http.Response, error) {
		if down.Load() {
			refused.Add(1)
			return nil, &net.OpError{Op: "dial", Net: "tcp", Err: fmt.Errorf("connect: connection refused")}
		}
		return http.DefaultTransport.RoundTrip(req)
	})}
	f.startManager(t, hc)
	f.planner(t)
	eventually(t, "Ready=False with the next attempt", func() (bool, string) {
		c := meta.FindStatusCondition(f.get(t).Status.Conditions, v1alpha1.ReadyCondition)
		return c != nil && c.Status == metav1.ConditionFalse && strings.Contains(c.Message, "connection refused") &&
			regexp.MustCompile(`next attempt in [^,]+, at \d{4}-`).MatchString(c.Message), fmt.Sprintf("%+v", c)
	})
	if refused.Load() == 0 {
		t.Fatal("the forge was never asked")
	}
	if _, ok := f.gh.PR(1); ok {
		t.Fatal("a pull request exists although the forge refused every connection")
	}
	down.Store(false)
	obj := f.planned(t)
	if prs := prsOf(f.gh, etcdBranch); len(prs) != 1 {
		t.Errorf("pull requests for %s once the forge is back: %+v, want one", etcdBranch, prs)
	}
	if p, ok := proposal(obj, etcdBranch); !ok || p.Number != 1 || p.State != "open" {
		t.Errorf("proposal %+v (found %v), want PR #1 open", p, ok)
	}
}
