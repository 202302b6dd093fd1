package planning_test

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
)

// A push to a protected branch is refused by the server's pre-receive
// hook, as GitHub's protection refuses it: the Planner retries with backoff,
// then stalls with the reason and stops pushing.
func TestRefusedPushStalls(t *testing.T) {
	f := newFleet(t)
	attempts := filepath.Join(f.dir, "refused-pushes")
	hook := "#!/bin/sh\nwhile read old new ref; do\n  if [ \"$ref\" = refs/heads/main ]; then\n" +
		"    echo x >> " + attempts + "\n    exit 1\n  fi\ndone\n"
	if err := os.WriteFile(filepath.Join(f.dir, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	f.planner(t) // staging is Automatic: its plans go to main
	var stalled *metav1.Condition
	eventually(t, "Stalled PushRefused", func() (bool, string) {
		obj := f.get(t)
		stalled = meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.StalledCondition)
		return stalled != nil && stalled.Status == metav1.ConditionTrue, fmt.Sprintf("%+v", obj.Status.Conditions)
	})
	took := time.Since(start)
	obj := f.get(t)
	ready := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition)
	if stalled.Reason != v1alpha1.PushRefusedReason || ready.Status != metav1.ConditionFalse || ready.Reason != v1alpha1.PushRefusedReason ||
		!strings.Contains(stalled.Message, "hook declined") || !strings.Contains(stalled.Message, "5 passes in a row") {
		t.Errorf("Stalled %+v, Ready %+v; want PushRefused naming the refusal and the attempts", stalled, ready)
	}
	// Four waits of the backoff (1+2+4+8 s) came between five attempts.
	if took < 10*time.Second {
		t.Errorf("stalled after %v: the refused pushes were not backed off", took)
	}
	data, _ := os.ReadFile(attempts)
	if n := strings.Count(string(data), "x"); n != 5 {
		t.Errorf("%d refused pushes before stalling, want 5", n)
	}
}

// The manager is killed (its context cancelled) while a pass is opening
// a pull request: the request reached GitHub, the status never recorded
// it. A new manager converges on the same pull request: no duplicate.
func TestKilledMidPassConverges(t *testing.T) {
	f := newFleetOnly(t)
	var (
		mu   sync.Mutex
		stop func()
	)
	killed := make(chan struct{})
	hc := &http.Client{Transport: roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err == nil && req.Method == http.MethodPost && strings.HasSuffix(req.URL.Path, "/pulls") {
			mu.Lock()
			defer mu.Unlock()
			select {
			case <-killed:
			default:
				close(killed)
				go stop() // the pass goes on, with its context ended
			}
		}
		return resp, err
	})}
	mu.Lock()
	stop = f.startManager(t, hc)
	mu.Unlock()
	f.planner(t)
	select {
	case <-killed:
	case <-time.After(60 * time.Second):
		t.Fatal("no pull request was opened within 60s")
	}
	stop()
	if obj := f.get(t); len(obj.Status.Proposals) != 0 && isReadyTrue(obj) {
		t.Fatalf("the killed pass recorded a success: %+v", obj.Status)
	}
	f.startManager(t, nil)
	f.push(t)
	obj := f.planned(t)
	if prs := prsOf(f.gh, etcdBranch); len(prs) != 1 {
		t.Errorf("pull requests for %s after the restart: %+v, want one", etcdBranch, prs)
	}
	if p, ok := proposal(obj, etcdBranch); !ok || p.Number != 1 || p.State != "open" {
		t.Errorf("proposal %+v (found %v), want PR #1 open", p, ok)
	}
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }

func isReadyTrue(obj *v1alpha1.Planner) bool {
	return meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.ReadyCondition)
}
