package kubetest

import (
	"context"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// MarkAvailable plays the Deployment controller and the kubelet, which
// envtest lacks, once: every Deployment of namespace ns ("" for all)
// whose rollout is not yet observed gets a status with all replicas
// updated, ready and available, and the conditions the controller sets
// once a rollout completed (kstatus reads both).
func MarkAvailable(ctx context.Context, c client.Client, ns string) {
	var list appsv1.DeploymentList
	if err := c.List(ctx, &list, client.InNamespace(ns)); err != nil {
		return
	}
	for i := range list.Items {
		d := &list.Items[i]
		replicas := int32(1)
		if d.Spec.Replicas != nil {
			replicas = *d.Spec.Replicas
		}
		if d.Status.ObservedGeneration == d.Generation && d.Status.AvailableReplicas == replicas {
			continue
		}
		d.Status = appsv1.DeploymentStatus{
			ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
			ReadyReplicas: replicas, AvailableReplicas: replicas,
			Conditions: []appsv1.DeploymentCondition{
				{Type: appsv1.DeploymentAvailable, Status: "True", Reason: "MinimumReplicasAvailable"},
				{Type: appsv1.DeploymentProgressing, Status: "True", Reason: "NewReplicaSetAvailable"},
			},
		}
		_ = c.Status().Update(ctx, d)
	}
}

// Rollout runs MarkAvailable every interval until ctx ends or the
// returned stop is called, which waits for it to finish.
func Rollout(ctx context.Context, c client.Client, ns string, interval time.Duration) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			MarkAvailable(ctx, c, ns)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return func() { cancel(); <-done }
}
