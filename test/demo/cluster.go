package main

import (
	"context"
	"path/filepath"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/test/harness"
)

// startClusters starts a control plane per cluster.
func (d *demo) startClusters(ctx context.Context) error {
	clusters, err := harness.StartClusters(d.Assets, d.CRDs, d.tmp, clusterNames...)
	if err != nil {
		return err
	}
	d.clusters = clusters
	for _, c := range d.clusters {
		d.onCleanup(c.Stop)
		d.out.line("%-9s  API server %s  kubeconfig %s", c.Name, c.Env.Config.Host, c.Kubeconfig)
	}
	d.out.line("(kubectl --kubeconfig <file> works against them while the demo runs)")
	return ctx.Err()
}

// createRepositories gives each controller the git credentials and a
// Repository for its cluster.
func (d *demo) createRepositories(ctx context.Context) error {
	for _, c := range d.clusters {
		// The service account staging's ClusterExtension is applied as.
		if err := c.CreateInstallers(ctx, filepath.Join(d.Examples, "installers")); err != nil {
			return err
		}
		err := c.CreateRepository(ctx, d.git.URL, v1alpha1.RepositorySpec{
			Interval:      metav1.Duration{Duration: time.Minute},
			HealthTimeout: metav1.Duration{Duration: time.Minute},
		})
		if err != nil {
			return err
		}
		d.out.line("%-9s  Secret %s/%s, Repository %s/%s: cluster %s of %s, every 1m",
			c.Name, harness.Namespace, harness.GitSecret, harness.Namespace, c.Name, c.Name, d.git.URL)
	}
	return nil
}

// startKubelet stands in for the Deployment controller and the kubelet,
// which envtest lacks, so that health checks can pass.
func (d *demo) startKubelet(ctx context.Context) error {
	for _, c := range d.clusters {
		stop := c.StartKubelet(ctx)
		d.onCleanup(func() error { stop(); return nil })
	}
	d.out.line("envtest has no kubelet: the demo marks Deployments available (all replicas ready)")
	d.out.line("as soon as they are created or changed, so that olmops' health checks can pass.")
	return nil
}
