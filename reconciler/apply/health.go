package apply

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
)

// Health reads the Deployments and CustomResourceDefinitions among objs
// through Reader and reports whether every Deployment is available
// (its rollout observed, every replica updated and available, no old
// replica left) and every CRD Established. Other kinds are healthy. objs
// are named as applied: namespaced ones carry their namespace. The reason
// names the first unhealthy object and its condition message; err is for
// reads that failed.
func (a *Applier) Health(ctx context.Context, objs []*unstructured.Unstructured) (healthy bool, reason string, err error) {
	reader := a.Reader
	if reader == nil {
		reader = a.Client
	}
	for _, obj := range objs {
		if obj == nil || !checked(obj) {
			continue
		}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(obj.GroupVersionKind())
		err := reader.Get(ctx, client.ObjectKeyFromObject(obj), live)
		if apierrors.IsNotFound(err) || meta.IsNoMatchError(err) {
			return false, obj.GetKind() + " " + obj.GetName() + ": not found", nil
		}
		if err != nil {
			return false, "", fmt.Errorf("health of %s: %w", entryOf(obj), err)
		}
		if ok, why := healthOf(live); !ok {
			return false, why, nil
		}
	}
	return true, "", nil
}

func checked(obj *unstructured.Unstructured) bool {
	gk := obj.GroupVersionKind().GroupKind()
	return gk == deploymentGK || gk == crdGK
}

// healthOf judges one live object of a kind Health checks; the rest are
// healthy.
func healthOf(live *unstructured.Unstructured) (bool, string) {
	if !checked(live) {
		return true, ""
	}
	name := live.GetKind() + " " + live.GetName()
	if live.GetDeletionTimestamp() != nil {
		return false, name + ": being deleted"
	}
	switch live.GroupVersionKind().GroupKind() {
	case deploymentGK:
		if why := deploymentProgress(live); why != "" {
			return false, name + ": " + why + conditionMessage(live, "Available", "Progressing", "ReplicaFailure")
		}
	case crdGK:
		if c := condition(live, "Established"); c["status"] != "True" {
			return false, name + ": not established" + conditionMessage(live, "NamesAccepted", "Established")
		}
	}
	return true, ""
}

// deploymentProgress says what a Deployment's rollout still waits for,
// the way kubectl rollout status does; "" when it is available.
func deploymentProgress(d *unstructured.Unstructured) string {
	replicas, found := number(d.Object, "spec", "replicas")
	if !found {
		replicas = 1
	}
	status := func(f string) int64 {
		v, _ := number(d.Object, "status", f)
		return v
	}
	generation, _ := number(d.Object, "metadata", "generation")
	switch observed, updated := status("observedGeneration"), status("updatedReplicas"); {
	case observed < generation:
		return fmt.Sprintf("rollout not observed yet (generation %d, observed %d)", generation, observed)
	case updated < replicas:
		return fmt.Sprintf("%d/%d replicas updated", updated, replicas)
	case status("replicas") > updated:
		return fmt.Sprintf("%d old replicas pending termination", status("replicas")-updated)
	case status("availableReplicas") < updated:
		return fmt.Sprintf("%d/%d available", status("availableReplicas"), updated)
	}
	return ""
}

// number reads an integer field, whether it was decoded from JSON by
// apimachinery (int64) or by a plain decoder (float64).
func number(obj map[string]any, fields ...string) (int64, bool) {
	v, found, _ := unstructured.NestedFieldNoCopy(obj, fields...)
	switch n := v.(type) {
	case int64:
		return n, found
	case int:
		return int64(n), found
	case float64:
		return int64(n), found
	}
	return 0, false
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

// conditionMessage is ": message" of the first of types whose status is
// not True, "" when none is.
func conditionMessage(obj *unstructured.Unstructured, types ...string) string {
	for _, t := range types {
		c := condition(obj, t)
		want := "True"
		if t == "ReplicaFailure" {
			want = "False"
		}
		if c == nil || c["status"] == want {
			continue
		}
		msg, _ := c["message"].(string)
		if msg == "" {
			msg, _ = c["reason"].(string)
		}
		if msg != "" {
			return ": " + msg
		}
	}
	return ""
}

// allHealthy judges objects already read, so that a hop whose apply
// responses show it healthy needs no further read.
func allHealthy(live []*unstructured.Unstructured) bool {
	for _, l := range live {
		if l == nil {
			return false
		}
		if ok, _ := healthOf(l); !ok {
			return false
		}
	}
	return true
}

// wait polls Health until objs are healthy or timeout passes; healthy is
// then false and reason the last one seen.
func (a *Applier) wait(ctx context.Context, objs []*unstructured.Unstructured, timeout time.Duration) (healthy bool, reason string, err error) {
	if allHealthy(objs) {
		return true, "", nil
	}
	timedOut, err := poll(ctx, a.PollInterval, timeout, func(ctx context.Context) (bool, error) {
		var err error
		healthy, reason, err = a.Health(ctx, objs)
		return healthy, err
	})
	if timedOut {
		return false, reason, nil
	}
	return healthy, reason, err
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
	ok, why, err := h.a.wait(ctx, crds, h.a.EstablishTimeout)
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
	ok, why, err := r.a.wait(ctx, live, r.a.HealthTimeout)
	switch {
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
