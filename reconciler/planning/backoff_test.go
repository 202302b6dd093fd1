package planning_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"

	"github.com/olmops/olmops/api/v1alpha1"
)

// The backoff of a failing Planner survives its controller: refused
// pushes are counted in the status, and a new manager waits for the next
// attempt the last one announced, then stalls after five refusals in all,
// not five more.
func TestBackoffSurvivesRestart(t *testing.T) {
	f := newFleetOnly(t)
	attempts := filepath.Join(f.dir, "refused-pushes")
	hook := "#!/bin/sh\nwhile read old new ref; do\n  if [ \"$ref\" = refs/heads/main ]; then\n" +
		"    date +%s >> " + attempts + "\n    exit 1\n  fi\ndone\n"
	if err := os.WriteFile(filepath.Join(f.dir, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
		t.Fatal(err)
	}
	stop := f.startManager(t, nil)
	f.planner(t) // staging is Automatic: its plans go to main, which refuses them
	var obj *v1alpha1.Planner
	eventually(t, "three refusals counted", func() (bool, string) {
		obj = f.get(t)
		return obj.Status.ConsecutiveFailures >= 3, fmt.Sprintf("%+v", obj.Status)
	})
	stop()
	obj = f.get(t)
	before := refusals(t, attempts)
	if next := obj.Status.NextAttemptTime; int(obj.Status.ConsecutiveFailures) != len(before) || next == nil || !next.After(time.Now()) {
		t.Fatalf("after %d refusals: failures %d, next attempt %v; want the count and a time to come", len(before), obj.Status.ConsecutiveFailures, next)
	}

	f.startManager(t, nil)
	eventually(t, "Stalled PushRefused", func() (bool, string) {
		obj := f.get(t)
		return meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.StalledCondition), fmt.Sprintf("%+v", obj.Status.Conditions)
	})
	all := refusals(t, attempts)
	if len(all) != 5 {
		t.Errorf("%d refused pushes in all (%d before the restart), want 5", len(all), len(before))
	}
	if len(all) > len(before) && all[len(before)] < obj.Status.NextAttemptTime.Unix() {
		t.Errorf("the new manager pushed at %d, before the next attempt announced for %d", all[len(before)], obj.Status.NextAttemptTime.Unix())
	}
	if st := f.get(t).Status; st.ConsecutiveFailures != 0 || st.NextAttemptTime != nil {
		t.Errorf("stalled, yet failures %d and next attempt %v remain", st.ConsecutiveFailures, st.NextAttemptTime)
	}
}

// refusals are the times, in Unix seconds, of the pushes the hook refused.
func refusals(t *testing.T, file string) []int64 {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out []int64
	for _, line := range strings.Fields(string(data)) {
		n, err := strconv.ParseInt(line, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, n)
	}
	return out
}
