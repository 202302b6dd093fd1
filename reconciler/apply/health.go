package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kstatus "sigs.k8s.io/cli-utils/pkg/kstatus/status"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
)

// Health reads every object of objs through Reader and reports whether
// each is Current as kstatus computes it (Deployments, StatefulSets and
// DaemonSets rolled out, CRDs Established, Services with their address,
// generations observed, a Ready condition True where there is one), and
// every APIService Available, which kstatus has no rule for. objs are
// named as applied: namespaced ones carry their namespace. The reason
// names the first object that is not Current, its status and kstatus'
// message; err is for reads that failed.
func (a *Applier) Health(ctx context.Context, objs []*unstructured.Unstructured) (healthy bool, reason string, err error) {
	objs = nonNil(objs)
	live, err := a.readHealth(ctx, objs)
	if err != nil {
		return false, "", err
	}
	left, why := pending(objs, live)
	return len(left) == 0, why, nil
}

// readHealth reads the live copy of each of objs, nil for an object that
// is gone or of a kind no longer served.
func (a *Applier) readHealth(ctx context.Context, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	reader := a.Reader
	if reader == nil {
		reader = a.Client
	}
	live := make([]*unstructured.Unstructured, len(objs))
	for i, obj := range objs {
		l := &unstructured.Unstructured{}
		l.SetGroupVersionKind(obj.GroupVersionKind())
		err := reader.Get(ctx, client.ObjectKeyFromObject(obj), l)
		switch {
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			continue
		case err != nil:
			return nil, fmt.Errorf("health of %s: %w", entryOf(obj), err)
		}
		live[i] = l
	}
	return live, nil
}

// pending returns the objects of objs whose live copy (live[i]) is not
// healthy, in order, and the reason of the first; a nil copy is an
// object not found.
func pending(objs, live []*unstructured.Unstructured) (left []*unstructured.Unstructured, reason string) {
	for i, obj := range objs {
		ok, why := false, obj.GetKind()+" "+obj.GetName()+": not found"
		if live[i] != nil {
			ok, why = healthOf(live[i])
		}
		if ok {
			continue
		}
		if reason == "" {
			reason = why
		}
		left = append(left, obj)
	}
	return left, reason
}

var apiServiceGK = schema.GroupKind{Group: "apiregistration.k8s.io", Kind: "APIService"}

// failedError is a wait cut short: an object kstatus calls Failed (a
// Deployment past its progress deadline, a Job that failed) does not get
// better by waiting.
type failedError struct{ reason string }

func (e *failedError) Error() string { return e.reason }

// failed returns the reason of the first of live (read as in pending)
// that kstatus calls Failed, "" when none is.
func failed(live []*unstructured.Unstructured) string {
	for _, l := range live {
		if l == nil {
			continue
		}
		if res, err := compute(l); err == nil && res.Status == kstatus.FailedStatus {
			_, why := healthOf(l)
			return why
		}
	}
	return ""
}

// healthOf judges one live object: healthy when kstatus says Current.
// The reason is "Kind name: Status: message", with the message of a
// failing condition added when kstatus' own does not carry it (a
// Deployment's quota error, say).
func healthOf(live *unstructured.Unstructured) (bool, string) {
	name := live.GetKind() + " " + live.GetName()
	res, err := compute(live)
	if err != nil {
		return false, name + ": " + err.Error()
	}
	if res.Status == kstatus.CurrentStatus {
		return true, ""
	}
	why := name + ": " + res.Status.String()
	if res.Message != "" {
		why += ": " + res.Message
	}
	if msg := failingCondition(live); msg != "" && !strings.Contains(why, msg) {
		why += ": " + msg
	}
	return false, why
}

// compute is kstatus.Compute, with APIServices Current only once the
// aggregator found their backend Available: kstatus would call them
// Current as soon as they exist.
func compute(live *unstructured.Unstructured) (*kstatus.Result, error) {
	if live.GroupVersionKind().GroupKind() != apiServiceGK || live.GetDeletionTimestamp() != nil {
		return kstatus.Compute(live)
	}
	c := condition(live, "Available")
	if c["status"] == "True" {
		return &kstatus.Result{Status: kstatus.CurrentStatus}, nil
	}
	msg, _ := c["message"].(string)
	if r, _ := c["reason"].(string); r != "" {
		msg = strings.TrimSuffix(r+": "+msg, ": ")
	}
	return &kstatus.Result{Status: kstatus.InProgressStatus, Message: "not Available" + strings.TrimSuffix(": "+msg, ": ")}, nil
}

// condition returns the status condition of type t, nil when absent.
func condition(obj *unstructured.Unstructured, t string) map[string]any {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == t {
			return m
		}
	}
	return nil
}

// failingConditions are the workload conditions whose message says why a
// rollout does not progress, with the status that means trouble.
var failingConditions = []struct{ typ, status string }{
	{"ReplicaFailure", "True"}, {"Available", "False"}, {"Progressing", "False"},
}

// failingCondition is the message (or reason) of the first failing
// condition of obj, "" when none fails.
func failingCondition(obj *unstructured.Unstructured) string {
	for _, f := range failingConditions {
		c := condition(obj, f.typ)
		if c == nil || c["status"] != f.status {
			continue
		}
		msg, _ := c["message"].(string)
		if msg == "" {
			msg, _ = c["reason"].(string)
		}
		if msg != "" {
			return msg
		}
	}
	return ""
}

// wait polls until objs are healthy or timeout passes; healthy is then
// false and reason the last one seen. objs are first judged as given (the
// apply responses), so that a hop already healthy needs no read, and only
// the objects not yet healthy are read again. seen, when not nil, hears
// the reason of each poll that still finds an object not healthy. An
// object kstatus calls Failed ends the wait at once with a *failedError.
func (a *Applier) wait(ctx context.Context, objs []*unstructured.Unstructured, timeout time.Duration, seen func(reason string)) (healthy bool, reason string, err error) {
	objs = nonNil(objs)
	left, reason := pending(objs, objs)
	if len(left) == 0 {
		return true, "", nil
	}
	timedOut, err := poll(ctx, a.PollInterval, timeout, func(ctx context.Context) (bool, error) {
		live, err := a.readHealth(ctx, left)
		if err != nil {
			return false, err
		}
		if why := failed(live); why != "" {
			return false, &failedError{why}
		}
		left, reason = pending(left, live)
		if len(left) > 0 && seen != nil {
			seen(reason)
		}
		return len(left) == 0, nil
	})
	if timedOut {
		return false, reason, nil
	}
	return len(left) == 0, reason, err
}

func nonNil(objs []*unstructured.Unstructured) []*unstructured.Unstructured {
	return slices.DeleteFunc(slices.Clone(objs), func(o *unstructured.Unstructured) bool { return o == nil })
}

// firstPoll is the first pause of poll, which doubles up to the
// Applier's PollInterval: CRDs are Established within a fraction of a
// second, rollouts take longer.
const firstPoll = 25 * time.Millisecond

// poll calls cond until it is done or fails, pausing from firstPoll up to
// interval, for at most timeout. cond gets ctx itself rather than one
// bounded by timeout, so that a read started just before the timeout does
// not fail for it.
func poll(ctx context.Context, interval, timeout time.Duration, cond func(context.Context) (bool, error)) (timedOut bool, err error) {
	deadline := time.Now().Add(timeout)
	pause := min(firstPoll, interval)
	for {
		done, err := cond(ctx)
		if done || err != nil {
			return false, err
		}
		left := time.Until(deadline)
		if left <= 0 {
			return true, nil
		}
		timer := time.NewTimer(min(pause, left))
		select {
		case <-ctx.Done():
			timer.Stop()
			return false, ctx.Err()
		case <-timer.C:
		}
		pause = min(2*pause, interval)
	}
}

// established waits until the hop's CRDs are Established, so that the
// objects of their kinds can follow.
func (h *hopApply) established(ctx context.Context, crds []*unstructured.Unstructured) error {
	ok, why, err := h.a.wait(ctx, crds, h.a.EstablishTimeout, nil)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%s (waited %s)", why, h.a.EstablishTimeout)
	}
	return nil
}

// awaitHealth waits until the hop's objects are healthy; when they are
// not within HealthTimeout, the Result says why and the error wraps
// ErrUnhealthy.
func (r *run) awaitHealth(ctx context.Context, live []*unstructured.Unstructured) error {
	ok, why, err := r.a.wait(ctx, live, r.a.HealthTimeout, r.waiting)
	var failed *failedError
	switch {
	case errors.As(err, &failed):
		r.res.Healthy, r.res.Reason = false, failed.reason
		return fmt.Errorf("%w: %s", ErrUnhealthy, failed.reason)
	case err != nil && ctx.Err() != nil:
		r.res.Phase = commitstatus.Applying // still awaited
		return err
	case err != nil:
		r.res.Reason = reason(err)
		return err
	}
	r.res.Healthy, r.res.Reason = ok, why
	if !ok {
		return fmt.Errorf("%w after %s: %s", ErrUnhealthy, r.a.HealthTimeout, why)
	}
	return nil
}
