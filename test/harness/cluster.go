package harness

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/reconciler"
	"github.com/olmops/olmops/render"
)

// Namespace and GitSecret are where CreateRepository puts the Repository
// and the Secret with the git credentials.
const (
	Namespace = "olmops-system"
	GitSecret = "fleet-git"
)

// Cluster is one control plane, standing for one cluster of the
// desired-state repository, and the olmops controller run against it.
type Cluster struct {
	Name       string
	Dir        string // its files: kubeconfig, serve's log and cache
	Env        *envtest.Environment
	Kubeconfig string // a cluster admin's
	Client     client.Client
	Serve      *Serve           // set by the caller once it runs olmops serve
	Repo       client.ObjectKey // its Repository, once created
}

// StartClusters starts a control plane per name side by side, since each
// takes seconds, with the CRDs under crds installed. On error it stops
// those that started.
func StartClusters(assets string, crds []string, dir string, names ...string) ([]*Cluster, error) {
	clusters := make([]*Cluster, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		c := &Cluster{Name: name, Dir: filepath.Join(dir, name)}
		clusters[i] = c
		wg.Go(func() { errs[i] = c.start(assets, crds) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		for _, c := range clusters {
			errs = append(errs, c.Stop())
		}
		return nil, errors.Join(errs...)
	}
	return clusters, nil
}

func (c *Cluster) start(assets string, crds []string) error {
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDDirectoryPaths:        crds,
		ErrorIfCRDPathMissing:    true,
		ControlPlaneStartTimeout: 90 * time.Second,
		ControlPlaneStopTimeout:  30 * time.Second,
	}
	if _, err := env.Start(); err != nil {
		// envtest leaves its processes running when installing the CRDs
		// fails after they started.
		return errors.Join(fmt.Errorf("%s: start the control plane from %s: %w", c.Name, assets, err), env.Stop())
	}
	c.Env = env
	return c.connect()
}

// connect writes a kubeconfig for a cluster admin, the one the controller
// and a curious user get, and builds the harness's own client from it.
func (c *Cluster) connect() error {
	user, err := c.Env.AddUser(envtest.User{Name: "harness", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		return fmt.Errorf("%s: add a user: %w", c.Name, err)
	}
	kubeconfig, err := user.KubeConfig()
	if err != nil {
		return fmt.Errorf("%s: kubeconfig: %w", c.Name, err)
	}
	c.Kubeconfig = filepath.Join(c.Dir, "kubeconfig")
	if err := os.WriteFile(c.Kubeconfig, kubeconfig, 0o600); err != nil {
		return err
	}
	scheme, err := reconciler.Scheme()
	if err != nil {
		return err
	}
	c.Client, err = client.New(user.Config(), client.Options{Scheme: scheme})
	return err
}

// Stop stops the control plane; a no-op for one that never started.
func (c *Cluster) Stop() error {
	if c == nil || c.Env == nil {
		return nil
	}
	if err := c.Env.Stop(); err != nil {
		return fmt.Errorf("%s: stop the control plane: %w", c.Name, err)
	}
	c.Env = nil
	return nil
}

// CreateRepository points the cluster's controller at url: a Secret with
// the git server's credentials and a Repository named after spec.Cluster
// (the cluster's own name when unset), with extra objects, such as a forge
// token's Secret, created before it. Several Repositories may share the
// namespace and the git Secret, which are left as they are when present.
func (c *Cluster) CreateRepository(ctx context.Context, url string, spec v1alpha1.RepositorySpec, extra ...client.Object) error {
	spec.URL, spec.Cluster = url, cmp.Or(spec.Cluster, c.Name)
	spec.SecretRef = &v1alpha1.LocalObjectReference{Name: GitSecret}
	if spec.Interval.Duration == 0 {
		spec.Interval = metav1.Duration{Duration: time.Minute}
	}
	shared := []client.Object{
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: Namespace}},
		&corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: GitSecret},
			Data:       map[string][]byte{"username": []byte(GitUsername), "password": []byte(GitPassword)},
		},
	}
	for _, obj := range shared {
		if err := c.Client.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("%s: create %T %s: %w", c.Name, obj, obj.GetName(), err)
		}
	}
	repo := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: spec.Cluster}, Spec: spec}
	for _, obj := range append(extra, repo) {
		if err := c.Client.Create(ctx, obj); err != nil {
			return fmt.Errorf("%s: create %T %s: %w", c.Name, obj, obj.GetName(), err)
		}
	}
	c.Repo = client.ObjectKeyFromObject(repo)
	return nil
}

// DeleteRepository deletes the Repository CreateRepository made and waits
// until it is gone, so that the next one on this control plane starts
// alone: olmops apply refuses to guess between two of one cluster.
func (c *Cluster) DeleteRepository(ctx context.Context, timeout time.Duration) error {
	repo := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: c.Repo.Namespace, Name: c.Repo.Name}}
	if err := c.Client.Delete(ctx, repo); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("%s: delete Repository %s: %w", c.Name, c.Repo, err)
	}
	return Poll(ctx, fmt.Sprintf("%s: Repository %s deleted", c.Name, c.Repo), timeout, func(ctx context.Context) (bool, string, error) {
		err := c.Client.Get(ctx, c.Repo, repo)
		if apierrors.IsNotFound(err) {
			return true, "", nil
		}
		return false, fmt.Sprintf("finalizers %v", repo.Finalizers), err
	})
}

// Events are the messages of the events the controller recorded on the
// Repository with reason, oldest first.
func (c *Cluster) Events(ctx context.Context, reason string) ([]string, error) {
	var list eventsv1.EventList
	if err := c.Client.List(ctx, &list, client.InNamespace(c.Repo.Namespace)); err != nil {
		return nil, err
	}
	slices.SortStableFunc(list.Items, func(a, b eventsv1.Event) int { return a.EventTime.Compare(b.EventTime.Time) })
	var out []string
	for _, e := range list.Items {
		if e.Regarding.Kind == "Repository" && e.Regarding.Name == c.Repo.Name && e.Reason == reason {
			out = append(out, e.Note)
		}
	}
	return out, nil
}

// StartKubelet stands in for the Deployment controller and the kubelet,
// which envtest lacks, so that health checks can pass: Deployments are
// marked available as soon as they are created or changed. stop ends it.
func (c *Cluster) StartKubelet(ctx context.Context) (stop func()) {
	return kubetest.Rollout(context.WithoutCancel(ctx), c.Client, "", 100*time.Millisecond)
}

// Repository reads the cluster's Repository.
func (c *Cluster) Repository(ctx context.Context) (*v1alpha1.Repository, error) {
	var repo v1alpha1.Repository
	if err := c.Client.Get(ctx, c.Repo, &repo); err != nil {
		return nil, err
	}
	return &repo, nil
}

// Subscription is the status of subscription ns/name in the cluster's
// Repository; the zero value while the controller has not applied it.
func (c *Cluster) Subscription(ctx context.Context, ns, name string) (v1alpha1.SubscriptionStatus, error) {
	repo, err := c.Repository(ctx)
	if err != nil {
		return v1alpha1.SubscriptionStatus{}, err
	}
	for _, st := range repo.Status.Subscriptions {
		if st.Namespace == ns && st.Name == name {
			return st, nil
		}
	}
	return v1alpha1.SubscriptionStatus{}, nil
}

// WaitSubscription waits until ok holds for subscription ns/name; line
// says what was seen, for the error.
func (c *Cluster) WaitSubscription(ctx context.Context, ns, name string, timeout time.Duration,
	ok func(v1alpha1.SubscriptionStatus) bool) error {
	what := fmt.Sprintf("%s: %s/%s", c.Name, ns, name)
	return Poll(ctx, what, timeout, func(ctx context.Context) (bool, string, error) {
		st, err := c.Subscription(ctx, ns, name)
		if err != nil {
			return false, "", err
		}
		if st.Phase == "" {
			return false, "not in the Repository's status yet", nil
		}
		return ok(st), fmt.Sprintf("%+v", st), nil
	})
}

// Installed holds for a subscription installed and healthy.
func Installed(st v1alpha1.SubscriptionStatus) bool {
	return st.Phase == v1alpha1.SubscriptionInstalled && st.Healthy
}

// CreateInstallers creates, as the cluster's administrator, the objects
// of every manifest in dir: the service accounts ClusterExtensions name
// and their permissions, which olmops does not create (it applies an
// extension's plan as that account). Objects already there are left as
// they are.
func (c *Cluster) CreateInstallers(ctx context.Context, dir string) error {
	return CreateInstallers(ctx, c.Client, dir)
}

// CreateInstallers is Cluster.CreateInstallers through any client.
func CreateInstallers(ctx context.Context, c client.Client, dir string) error {
	objs, err := render.ReadFiles(os.DirFS(dir), ".")
	if err != nil {
		return fmt.Errorf("read installers: %w", err)
	}
	// Namespaces first: the service accounts live in them.
	rank := func(o *unstructured.Unstructured) int {
		if o.GetKind() == "Namespace" {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int { return cmp.Compare(rank(a), rank(b)) })
	for _, obj := range objs {
		if err := c.Create(ctx, obj); err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}
