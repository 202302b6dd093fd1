package planning_test

import (
	"fmt"
	"io"
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

// GitHub opens the pull request, then its reply is lost (a 502 from a
// proxy in front of it): the pass fails with the time of its next
// attempt, and the retry finds that pull request rather than open another.
func TestLostForgeReplyRetriedWithoutDuplicate(t *testing.T) {
	f := newFleetOnly(t)
	var lost atomic.Bool
	hc := &http.Client{Transport: roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/pulls") && lost.CompareAndSwap(false, true) {
			resp.Body.Close()
			return &http.Response{StatusCode: http.StatusBadGateway, Status: "502 Bad Gateway", Header: http.Header{},
				Body: io.NopCloser(strings.NewReader("bad gateway")), Request: req}, nil
		}
		return resp, err
	})}
	f.startManager(t, hc)
	f.planner(t)
	eventually(t, "Ready=False with the next attempt", func() (bool, string) {
		c := meta.FindStatusCondition(f.get(t).Status.Conditions, v1alpha1.ReadyCondition)
		return c != nil && c.Status == metav1.ConditionFalse && c.Reason == v1alpha1.ProposeFailedReason &&
			regexp.MustCompile(`next attempt in [^,]+, at \d{4}-`).MatchString(c.Message), fmt.Sprintf("%+v", c)
	})
	if !lost.Load() {
		t.Fatal("no pull request was opened")
	}
	obj := f.planned(t)
	if prs := prsOf(f.gh, etcdBranch); len(prs) != 1 {
		t.Errorf("pull requests for %s after the lost reply: %+v, want one", etcdBranch, prs)
	}
	if p, ok := proposal(obj, etcdBranch); !ok || p.Number != 1 || p.State != "open" {
		t.Errorf("proposal %+v (found %v), want PR #1 open", p, ok)
	}
}

// A commit whose catalog does not load stalls the Planner, naming the
// file and line, and leaves the open proposal as it was.
func TestBrokenCatalogStalls(t *testing.T) {
	f := newFleet(t)
	f.planner(t)
	f.planned(t)
	pr1 := mustPR(t, f.gh, 1)
	const file = "catalogs/operatorhub/etcd/catalog.yaml"
	broken := strings.Replace(string(mustFile(t, "../../examples/"+file)), "schema: olm.bundle", "schema: olm.bundle\nschema: [", 1)
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{file: []byte(broken)}, Message: "a broken catalog"})
	f.push(t)
	var stalled *metav1.Condition
	eventually(t, "stalled", func() (bool, string) {
		obj := f.get(t)
		stalled = meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.StalledCondition)
		return stalled != nil && stalled.Status == metav1.ConditionTrue && obj.Status.LastFetchedCommit == f.head(t), fmt.Sprintf("%+v", obj.Status)
	})
	if stalled.Reason != v1alpha1.InvalidInputReason || !regexp.MustCompile(regexp.QuoteMeta(file)+`:\d+`).MatchString(stalled.Message) {
		t.Errorf("Stalled = %+v, want InvalidInput naming %s:line", stalled, file)
	}
	obj := f.get(t)
	if p, ok := proposal(obj, etcdBranch); !ok || p.Number != 1 || obj.Status.LastPlannedCommit == f.head(t) {
		t.Errorf("proposals %+v, last planned %s: want PR #1 kept and the broken head not planned", obj.Status.Proposals, obj.Status.LastPlannedCommit)
	}
	if got, ok := f.gh.PR(1); !ok || got.HeadSHA != pr1.HeadSHA || got.State != "open" {
		t.Errorf("PR #1 changed: %+v, was %+v", got, pr1)
	}
	if _, ok := f.gh.PR(2); ok {
		t.Error("a broken catalog opened PR #2")
	}
}
