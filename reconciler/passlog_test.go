package reconciler

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/internal/kubetest"
)

// captureJSONLogs records what the package's managers log, up to V(5), as
// olmops serve writes it: slog's JSON handler, which writes a key given
// twice twice.
func captureJSONLogs(t *testing.T) *logBuffer {
	t.Helper()
	b := &logBuffer{}
	l := logr.FromSlogHandler(slog.NewJSONHandler(lockedWriter{b}, &slog.HandlerOptions{Level: slog.Level(-5)}))
	if !logTarget.CompareAndSwap(nil, &l) {
		t.Fatal("another test captures the logs")
	}
	t.Cleanup(func() { logTarget.Store(nil) })
	return b
}

type lockedWriter struct{ b *logBuffer }

func (w lockedWriter) Write(p []byte) (int, error) {
	w.b.mu.Lock()
	defer w.b.mu.Unlock()
	return w.b.buf.Write(p)
}

// TestOneLogLinePerPass runs real passes of a Repository and a Planner
// under olmops serve's manager and reads its JSON log: each pass logs one
// info line saying what it did, and no line carries a key twice.
func TestOneLogLinePerPass(t *testing.T) {
	f := newFleetRepo(t, false, nil)
	f.plan(t)
	f.startEnv(t)
	t.Cleanup(kubetest.Rollout(context.Background(), f.env.Client, "", 20*time.Millisecond))
	logs := captureJSONLogs(t)
	stop := f.startManager(t)
	key := f.repository(t, "staging")
	planner := &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Namespace: key.Namespace, Name: "fleet"}, Spec: v1alpha1.PlannerSpec{
		URL: f.url, Interval: metav1.Duration{Duration: time.Hour}, SecretRef: &v1alpha1.LocalObjectReference{Name: "git"},
	}}
	if err := f.env.Client.Create(t.Context(), planner); err != nil {
		t.Fatal(err)
	}
	eventuallyReady(t, f, key, metav1.ConditionTrue, v1alpha1.SucceededReason)
	eventually(t, "the Planner Ready", func() (bool, string) {
		if err := f.env.Client.Get(t.Context(), client.ObjectKeyFromObject(planner), planner); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(planner.Status.Conditions, v1alpha1.ReadyCondition)
		return c != nil && c.Status == metav1.ConditionTrue, fmt.Sprintf("%+v", c)
	})
	stop()

	perPass := map[string][]string{}
	passes := map[string]map[string]any{}
	sc := bufio.NewScanner(strings.NewReader(logs.String()))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if err := noDuplicateKeys(line); err != nil {
			t.Errorf("%v in %s", err, line)
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("not JSON: %v: %s", err, line)
		}
		// V(1) and up are slog's levels below Info ("DEBUG+3"...).
		id, _ := rec["reconcileID"].(string)
		if id == "" || rec["level"] != "INFO" {
			continue
		}
		perPass[id] = append(perPass[id], line)
		if rec["msg"] == "reconciled" {
			passes[rec["controller"].(string)] = rec
		}
	}
	for id, lines := range perPass {
		if len(lines) > 1 {
			t.Errorf("pass %s logged %d info lines:\n%s", id, len(lines), strings.Join(lines, "\n"))
		}
	}
	repo, plan := passes["repository"], passes["planner"]
	if repo == nil || repo["reason"] != v1alpha1.SucceededReason || repo["plans"] == nil || repo["changed"] == nil ||
		repo["held"] == nil || repo["failed"] == nil || repo["duration"] == nil || len(fmt.Sprint(repo["commit"])) != 12 {
		t.Errorf("the Repository's pass line: %v", repo)
	}
	if plan == nil || plan["result"] == nil || plan["duration"] == nil {
		t.Errorf("the Planner's pass line: %v", plan)
	}
	if t.Failed() {
		t.Logf("log:\n%s", logs.String())
	}
}

// noDuplicateKeys fails on an object of line with a key twice.
func noDuplicateKeys(line string) error {
	dec := json.NewDecoder(strings.NewReader(line))
	var walk func() error
	walk = func() error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				if seen[k.(string)] {
					return fmt.Errorf("key %q twice", k)
				}
				seen[k.(string)] = true
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		case json.Delim('['):
			for dec.More() {
				if err := walk(); err != nil {
					return err
				}
			}
			_, err = dec.Token()
			return err
		}
		return nil
	}
	if err := walk(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}
