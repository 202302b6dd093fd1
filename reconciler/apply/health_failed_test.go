package apply

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A Deployment past its progress deadline is Failed for kstatus: Apply
// stops waiting at once and fails the hop with kstatus' words, rather
// than wait out a HealthTimeout far longer than the test may run.
func TestHealthFailedStopsWaiting(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	a := testApplier(env.Client)
	a.HealthTimeout = time.Hour
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	go func() {
		// Play the Deployment controller giving up, once Apply made it.
		for ctx.Err() == nil {
			d := &appsv1.Deployment{}
			if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "etcd-operator"}, d); err == nil {
				d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 1, UpdatedReplicas: 1,
					Conditions: []appsv1.DeploymentCondition{{Type: appsv1.DeploymentProgressing, Status: "False",
						Reason: "ProgressDeadlineExceeded", Message: `ReplicaSet "etcd-operator-1" has timed out progressing.`}}}
				if env.Client.Status().Update(ctx, d) == nil {
					return
				}
			}
			select {
			case <-ctx.Done():
			case <-time.After(20 * time.Millisecond):
			}
		}
	}()
	res, err := a.Apply(ctx, Request{Namespace: ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, ns, "etcdoperator.v0.9.4")}})
	if ctx.Err() != nil {
		t.Fatalf("Apply still waited on a Failed Deployment after a minute: %v", err)
	}
	if !errors.Is(err, ErrUnhealthy) || res.Healthy || !strings.Contains(res.Reason, "Deployment etcd-operator: Failed") || !strings.Contains(res.Reason, "timed out progressing") {
		t.Errorf("Apply = %+v, %v; want ErrUnhealthy with kstatus' Failed message", res, err)
	}
}
