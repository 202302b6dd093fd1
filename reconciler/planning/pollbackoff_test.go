package planning_test

import (
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/internal/gittest"
)

// A registry that keeps failing is not polled at full rate after a
// restart: the new manager polls no sooner than the time the status
// announced, and goes on doubling the wait from the count there.
func TestPollBackoffSurvivesRestart(t *testing.T) {
	var (
		mu    sync.Mutex
		polls []time.Time
	)
	reg := ocitest.NewRegistry(t, ocitest.WithMiddleware(func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if strings.Contains(r.URL.Path, "/manifests/") {
				mu.Lock()
				polls = append(polls, time.Now())
				mu.Unlock()
				http.Error(w, "no such tag", http.StatusNotFound)
				return
			}
			next.ServeHTTP(w, r)
		})
	}))
	f := newFleetOnly(t)
	// An interval of an hour: only the backoff spaces the polls.
	cfg := string(mustFile(t, "../../examples/olmops.yaml"))
	cfg = strings.Replace(cfg, "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n", 1)
	cfg = strings.Replace(cfg, "      path: catalogs/operatorhub\n",
		fmt.Sprintf("      path: catalogs/operatorhub\n      source: {image: %q, pollInterval: 1h}\n", reg.Ref("olmops/operatorhub:v4.20")), 1)
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"olmops.yaml": []byte(cfg)}, Message: "poll operatorhub"})
	stop := f.startManager(t, nil)
	f.planner(t)

	// Three failures: 1s then 2s apart, the next announced 4s after the third.
	_, c := f.catalogPoll(t, "three failed polls", func(c v1alpha1.CatalogPoll) bool { return c.ConsecutiveFailures >= 3 })
	stop()
	_, c = f.catalogPoll(t, "the status after the stop", func(v1alpha1.CatalogPoll) bool { return true })
	if c.Error == "" || c.NextAttemptTime == nil || c.LastPollTime == nil {
		t.Fatalf("a failing poll left %+v", c)
	}
	announced, failures := c.NextAttemptTime.Time, c.ConsecutiveFailures
	mu.Lock()
	before := len(polls)
	mu.Unlock()
	if restarted := time.Now(); !restarted.Before(announced) {
		t.Logf("restarted at %s, after the announced %s: the restart proves little", restarted, announced)
	}

	f.startManager(t, nil)
	_, c = f.catalogPoll(t, "a poll after the restart", func(c v1alpha1.CatalogPoll) bool { return c.ConsecutiveFailures > failures })
	mu.Lock()
	after := append([]time.Time(nil), polls[before:]...)
	mu.Unlock()
	if len(after) == 0 || after[0].Before(announced) {
		t.Fatalf("polls after the restart at %v; the status announced none before %s", after, announced)
	}
	if len(after) > 1 {
		t.Errorf("%d polls after the restart before the status said %d failures: %v", len(after), c.ConsecutiveFailures, after)
	}
	// The fourth failure waits 8s, not the 1s of a backoff started over.
	if wait := c.NextAttemptTime.Sub(after[0]); c.ConsecutiveFailures != failures+1 || wait < 7*time.Second {
		t.Errorf("after the restart: %d failures, next attempt %v after the poll; want %d and about 8s", c.ConsecutiveFailures, wait, failures+1)
	}
}
