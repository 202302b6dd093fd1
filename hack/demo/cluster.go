package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/reconciler"
)

const (
	olmopsNamespace = "olmops-system"
	gitSecret       = "fleet-git"
)

// cluster is one control plane, standing for one of examples/' clusters,
// and the olmops controller running against it.
type cluster struct {
	name       string
	dir        string // its files: kubeconfig, serve's log and cache
	env        *envtest.Environment
	kubeconfig string
	client     client.Client
	serve      *serveProc
	repo       client.ObjectKey // its Repository
}

// startClusters starts the control planes side by side, since each takes
// seconds.
func (d *demo) startClusters(ctx context.Context) error {
	d.clusters = make([]*cluster, len(clusterNames))
	errs := make([]error, len(clusterNames))
	var wg sync.WaitGroup
	for i, name := range clusterNames {
		c := &cluster{name: name, dir: filepath.Join(d.tmp, name)}
		d.clusters[i] = c
		wg.Go(func() { errs[i] = d.startCluster(c) })
	}
	wg.Wait()
	for _, c := range d.clusters {
		if c.env != nil {
			d.onCleanup(func() error { return stopCluster(c) })
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	for _, c := range d.clusters {
		d.out.line("%-9s  API server %s  kubeconfig %s", c.name, c.env.Config.Host, c.kubeconfig)
	}
	d.out.line("(kubectl --kubeconfig <file> works against them while the demo runs)")
	return ctx.Err()
}

func (d *demo) startCluster(c *cluster) error {
	if err := os.MkdirAll(c.dir, 0o755); err != nil {
		return err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    d.assets,
		CRDDirectoryPaths:        d.crds,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	if _, err := env.Start(); err != nil {
		// envtest leaves its processes running when installing the CRDs
		// fails after they started.
		return errors.Join(fmt.Errorf("%s: start the control plane from %s: %w", c.name, d.assets, err), env.Stop())
	}
	c.env = env
	return c.connect()
}

// connect writes a kubeconfig for a cluster admin, the one the controller
// and a curious user get, and builds the demo's own client from it.
func (c *cluster) connect() error {
	user, err := c.env.AddUser(envtest.User{Name: "demo", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("%s: add a user: %w", c.name, err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return fmt.Errorf("%s: kubeconfig: %w", c.name, err)
	}
	c.kubeconfig = filepath.Join(c.dir, "kubeconfig")
	if err := os.WriteFile(c.kubeconfig, kubeconfig, 0o600); err != nil {
		return err
	}
	scheme, err := reconciler.Scheme()
	if err != nil {
		return err
	}
	c.client, err = client.New(user.Config(), client.Options{Scheme: scheme})
	return err
}

func stopCluster(c *cluster) error {
	if err := c.env.Stop(); err != nil {
		return fmt.Errorf("%s: stop the control plane: %w", c.name, err)
	}
	return nil
}

// createRepositories gives each controller the git credentials and a
// Repository for its cluster.
func (d *demo) createRepositories(ctx context.Context) error {
	for _, c := range d.clusters {
		if err := d.createRepository(ctx, c); err != nil {
			return fmt.Errorf("%s: %w", c.name, err)
		}
		d.out.line("%-9s  Secret %s/%s, Repository %s/%s: cluster %s of %s, every 1m",
			c.name, olmopsNamespace, gitSecret, olmopsNamespace, c.name, c.name, d.git.url)
	}
	return nil
}

func (d *demo) createRepository(ctx context.Context, c *cluster) error {
	objs := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: olmopsNamespace}},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: olmopsNamespace, Name: gitSecret},
			Data:       map[string][]byte{"username": []byte(gitUsername), "password": []byte(gitPassword)},
		},
		&v1alpha1.Repository{
			ObjectMeta: metav1.ObjectMeta{Namespace: olmopsNamespace, Name: c.name},
			Spec: v1alpha1.RepositorySpec{
				URL: d.git.url, Cluster: c.name,
				Interval:      metav1.Duration{Duration: time.Minute},
				HealthTimeout: metav1.Duration{Duration: time.Minute},
				SecretRef:     &v1alpha1.LocalObjectReference{Name: gitSecret},
			},
		},
	}
	for _, obj := range objs {
		if err := c.client.Create(ctx, obj); err != nil {
			return fmt.Errorf("create %T %s: %w", obj, obj.GetName(), err)
		}
	}
	c.repo = client.ObjectKey{Namespace: olmopsNamespace, Name: c.name}
	return nil
}

// startKubelet stands in for the Deployment controller and the kubelet,
// which envtest lacks, so that health checks can pass.
func (d *demo) startKubelet(ctx context.Context) error {
	for _, c := range d.clusters {
		stop := kubetest.Rollout(context.WithoutCancel(ctx), c.client, "", 100*time.Millisecond)
		d.onCleanup(func() error { stop(); return nil })
	}
	d.out.line("envtest has no kubelet: the demo marks Deployments available (all replicas ready)")
	d.out.line("as soon as they are created or changed, so that olmops' health checks can pass.")
	return nil
}

// subscription is the status of subscription ns/name in c's Repository;
// the zero value while the controller has not applied it.
func (c *cluster) subscription(ctx context.Context, ns, name string) (v1alpha1.SubscriptionStatus, error) {
	var repo v1alpha1.Repository
	if err := c.client.Get(ctx, c.repo, &repo); err != nil {
		return v1alpha1.SubscriptionStatus{}, err
	}
	for _, st := range repo.Status.Subscriptions {
		if st.Namespace == ns && st.Name == name {
			return st, nil
		}
	}
	return v1alpha1.SubscriptionStatus{}, nil
}
