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
	const file = "catalogs/operatorhub/etcd/catalog.yaml"
	broken := strings.Replace(string(mustFile(t, "../../examples/"+file)), "schema: olm.bundle", "schema: olm.bundle\nschema: [", 1)
	stalled := f.stallsOn(t, file, broken, "a broken catalog")
	if stalled.Reason != v1alpha1.InvalidInputReason || !regexp.MustCompile(regexp.QuoteMeta(file)+`:\d+`).MatchString(stalled.Message) {
		t.Errorf("Stalled = %+v, want InvalidInput naming %s:line", stalled, file)
	}
}
