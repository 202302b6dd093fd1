package reconciler

import (
	"context"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/reconciler/apply"
	"github.com/olmops/olmops/render"
)

// Once etcd is installed in etcd-system, a tenant bound to nothing but
// the namespace's OperatorGroup admin role may create an EtcdCluster
// there, as under OLM; once the plan leaves the branch, the group's roles
// go and so does the tenant's access. The cluster serves no OperatorGroup
// kind (no OLM), so none is created.
func TestSyncKeepsOperatorGroupRoles(t *testing.T) {
	f := newFleetRepo(t, false, nil)
	f.plan(t)
	f.startEnv(t)
	t.Cleanup(kubetest.Rollout(context.Background(), f.env.Client, "", 20*time.Millisecond))
	const branch, dir, ns = "olmops/prod-east/etcd-system/etcd", "clusters/prod-east/plans/etcd-system/", "etcd-system"
	ctx := t.Context()
	repo, err := gitsource.Open(ctx, gitsource.Options{URL: f.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: gitPassword}})
	if err != nil {
		t.Fatal(err)
	}
	s := &Syncer{Applier: &apply.Applier{Client: f.env.Client, PollInterval: 20 * time.Millisecond, HealthTimeout: time.Minute}}
	pass := func(t *testing.T, prev []v1alpha1.SubscriptionStatus) *Outcome {
		t.Helper()
		if err := repo.Fetch(ctx); err != nil {
			t.Fatal(err)
		}
		commit, err := repo.Resolve(ctx, "main")
		if err != nil {
			t.Fatal(err)
		}
		evs := &eventLog{}
		out, err := s.Sync(ctx, Target{ID: "groups", Repo: repo, Commit: commit, Branch: "main", Cluster: "prod-east", Prune: true, Previous: prev, Event: evs.add})
		if err != nil {
			t.Fatal(err)
		}
		if !out.Settled {
			t.Fatalf("pass not settled: %+v; events %q", out, evs.all())
		}
		return out
	}
	tenant, err := client.New(f.env.UserConfig(t, "tenant"), client.Options{Scheme: f.env.Scheme})
	if err != nil {
		t.Fatal(err)
	}
	createCluster := func(name string) error {
		ec := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"size": int64(1)}}}
		ec.SetAPIVersion("etcd.database.coreos.com/v1beta2")
		ec.SetKind("EtcdCluster")
		ec.SetNamespace(ns)
		ec.SetName(name)
		return tenant.Create(ctx, ec)
	}

	gittest.Commit(t, f.dir, "main", gittest.Change{Files: treeFiles(t, f.dir, branch, dir+"etcd"), Message: "etcd"})
	out := pass(t, nil)
	if st := status(out, "etcd"); st.Phase != v1alpha1.SubscriptionInstalled {
		t.Fatalf("etcd = %+v", st)
	}
	admin := groupRole(t, f.env.Client, ns, "admin")
	if admin == nil || admin.AggregationRule == nil || len(admin.AggregationRule.ClusterRoleSelectors) == 0 {
		t.Fatalf("no admin role aggregating etcd's APIs: %+v", admin)
	}
	og := &unstructured.Unstructured{}
	og.SetAPIVersion("operators.coreos.com/v1")
	og.SetKind("OperatorGroup")
	if err := f.env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: render.DefaultOperatorGroup}, og); err == nil {
		t.Error("an OperatorGroup was written on a cluster that serves no such kind")
	}
	binding := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenant-admin"},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: admin.Name},
		Subjects: []rbacv1.Subject{{APIGroup: "rbac.authorization.k8s.io", Kind: "User", Name: "tenant"}}}
	if err := f.env.Client.Create(ctx, binding); err != nil {
		t.Fatal(err)
	}
	if err := kubetest.Aggregate(ctx, f.env.Client); err != nil {
		t.Fatal(err)
	}
	if err := createCluster("allowed"); err != nil {
		t.Fatalf("the tenant bound to %s cannot create an EtcdCluster: %v", admin.Name, err)
	}

	gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{dir + "etcd": nil}, Message: "etcd goes"})
	pass(t, out.Subscriptions)
	if r := groupRole(t, f.env.Client, ns, "admin"); r != nil {
		t.Fatalf("%s outlived the namespace's last plan", r.Name)
	}
	if err := kubetest.Aggregate(ctx, f.env.Client); err != nil {
		t.Fatal(err)
	}
	if err := createCluster("denied"); !apierrors.IsForbidden(err) {
		t.Errorf("the tenant still creates EtcdClusters once etcd is removed: %v", err)
	}
}

// groupRole is the OperatorGroup ClusterRole of namespace with suffix,
// nil when there is none.
func groupRole(t *testing.T, c client.Client, namespace, suffix string) *rbacv1.ClusterRole {
	t.Helper()
	var roles rbacv1.ClusterRoleList
	if err := c.List(t.Context(), &roles, client.MatchingLabels{render.OperatorGroupLabel: namespace}); err != nil {
		t.Fatal(err)
	}
	for i := range roles.Items {
		if r := &roles.Items[i]; strings.Contains(r.Name, "."+suffix+"-") {
			return r
		}
	}
	return nil
}
