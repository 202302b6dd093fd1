package apply

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/internal/kubetest"
)

const installer = "installer"

// saFixture is a namespace with the service account installer, and an
// Applier whose own account may read everything, impersonate service
// accounts and write nothing: whatever it installs, the service account
// wrote.
type saFixture struct {
	env *kubetest.Env
	ns  string
	a   *Applier
}

func newSAFixture(t *testing.T) *saFixture {
	t.Helper()
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	rollout(t, env, ns)
	create(t, env.Client, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: installer}})
	user := "controller-" + ns
	grant(t, env.Client, rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}, "", []rbacv1.PolicyRule{
		{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}},
		{APIGroups: []string{""}, Resources: []string{"serviceaccounts"}, Verbs: []string{"impersonate"}},
	})
	cfg := env.UserConfig(t, user)
	opts := client.Options{Scheme: env.Scheme, Mapper: env.Client.RESTMapper()}
	c, err := client.New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	a := testApplier(c)
	a.Reader = env.Client
	a.Impersonate = NewImpersonator(cfg, opts).Client
	return &saFixture{env: env, ns: ns, a: a}
}

var grants atomic.Int64

// grant binds rules to subject cluster-wide, or in namespace ns.
func grant(t *testing.T, c client.Client, subject rbacv1.Subject, ns string, rules []rbacv1.PolicyRule) {
	t.Helper()
	name := fmt.Sprintf("olmops-test-grant-%d", grants.Add(1))
	if ns == "" {
		create(t, c, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules})
		create(t, c, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name}, Subjects: []rbacv1.Subject{subject},
			RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name}})
		return
	}
	create(t, c, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Rules: rules})
	create(t, c, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Subjects: []rbacv1.Subject{subject},
		RoleRef: rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: name}})
}

func (f *saFixture) installer() rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: installer, Namespace: f.ns}
}

func create(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

// grantInstallerAllBut gives installer, cluster-wide, what the etcd
// bundle takes, except creating Deployments.
func (f *saFixture) grantInstallerAllBut(t *testing.T) {
	grant(t, f.env.Client, f.installer(), "", []rbacv1.PolicyRule{
		{APIGroups: []string{"", "rbac.authorization.k8s.io", "apiextensions.k8s.io", "operators.coreos.com", "etcd.database.coreos.com"},
			Resources: []string{"*"}, Verbs: []string{"*"}},
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"get", "list", "watch", "patch", "update", "delete"}},
	})
}

// applyUntil applies req until done says the result is the one awaited,
// or 20 s pass: the RBAC authorizer sees a grant a moment after it is
// written. It returns the last result.
func applyUntil(t *testing.T, a *Applier, req Request, done func(*Result) bool) (*Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		res, err := a.Apply(ctx, req)
		if err != nil || done(res) || ctx.Err() != nil {
			return res, err
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func notHeld(r *Result) bool { return r.Phase != commitstatus.Held }

// A ClusterExtension's plan is applied as its service account: one that
// may not create the Deployment holds the plan, naming the rule and
// writing nothing, although the cluster's administrator could write it
// all; granted the rule, the next apply installs, and since the
// controller's own account writes nothing, the service account did.
func TestApplyAsServiceAccount(t *testing.T) {
	const v092 = "etcdoperator.v0.9.2"
	f := newSAFixture(t)
	f.grantInstallerAllBut(t)
	req := Request{Namespace: f.ns, Subscription: "etcd", ServiceAccount: installer, Hops: []Hop{etcdHop(t, f.ns, v092)}}
	var heard []Result
	req.Progress = func(r Result) { heard = append(heard, r) }

	res, err := f.a.Apply(t.Context(), req)
	if err != nil {
		t.Fatalf("a permissions hold is no error: %v", err)
	}
	want := []string{"create deployments.apps/etcd-operator in " + f.ns}
	if res.Phase != commitstatus.Held || !slices.Equal(res.MissingPermissions, want) || res.Applied != 0 {
		t.Fatalf("phase %s, missing %q, applied %d; want held, missing %q, nothing applied", res.Phase, res.MissingPermissions, res.Applied, want)
	}
	if !containsAll(res.Reason, v092+" not applied: service account "+f.ns+"/installer may not: "+want[0]) {
		t.Errorf("reason %q", res.Reason)
	}
	if len(heard) != 1 || heard[0].Phase != commitstatus.Held {
		t.Errorf("progress heard %+v, want one Held", heard)
	}
	if rep := res.Report(); rep.Phase != commitstatus.Held || rep.Bundle != v092 || rep.Reason != res.Reason {
		t.Errorf("commit status report %+v", rep)
	}
	for _, o := range req.Hops[0].Objects {
		if o.GetKind() == "CustomResourceDefinition" {
			continue // cluster-wide, shared with the package's other tests
		}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(o.GroupVersionKind())
		err := f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: f.ns, Name: o.GetName()}, live)
		if !apierrors.IsNotFound(err) {
			t.Errorf("%s %s written while held (%v)", o.GetKind(), o.GetName(), err)
		}
	}

	grant(t, f.env.Client, f.installer(), f.ns, []rbacv1.PolicyRule{
		{APIGroups: []string{"apps"}, Resources: []string{"deployments"}, Verbs: []string{"create"}},
	})
	res, err = applyUntil(t, f.a, req, notHeld)
	if err != nil || res.Phase != commitstatus.Installed || !res.Healthy || len(res.MissingPermissions) != 0 {
		t.Fatalf("after the grant: %v, %+v", err, res)
	}
	if d := get(t, f.env.Client, deploymentGVK, f.ns, "etcd-operator"); !managedBy(d, DefaultFieldOwner) {
		t.Errorf("the Deployment was not applied by %s", DefaultFieldOwner)
	}
}

// The same controller, without the service account, may not write: a
// plan that names none is applied with the controller's own account.
func TestApplyWithoutServiceAccountKeepsTheControllersAccount(t *testing.T) {
	f := newSAFixture(t)
	req := Request{Namespace: f.ns, Subscription: "etcd", Hops: []Hop{etcdHop(t, f.ns, "etcdoperator.v0.9.2")}}
	f.a.Impersonate = func(ns, sa string) (client.Client, error) {
		t.Errorf("impersonated %s/%s for a plan that names no service account", ns, sa)
		return nil, nil
	}
	res, err := f.a.Apply(t.Context(), req)
	if err == nil || res.Phase != commitstatus.Failed || !strings.Contains(res.Reason, `"controller-`+f.ns+`"`) {
		t.Fatalf("the controller's own account wrote: %v, %+v", err, res)
	}

	admin := testApplier(f.env.Client)
	admin.Impersonate = f.a.Impersonate
	res, err = admin.Apply(t.Context(), req)
	if err != nil || res.Phase != commitstatus.Installed {
		t.Fatalf("a Subscription's plan with an account that may: %v, %+v", err, res)
	}
}

func TestApplyHeldWithoutServiceAccount(t *testing.T) {
	f := newSAFixture(t)
	req := Request{Namespace: f.ns, Subscription: "etcd", ServiceAccount: "ghost", Hops: []Hop{etcdHop(t, f.ns, "etcdoperator.v0.9.2")}}
	res, err := f.a.Apply(t.Context(), req)
	if err != nil || res.Phase != commitstatus.Held || res.Applied != 0 ||
		!strings.Contains(res.Reason, "service account "+f.ns+"/ghost may not: anything: it does not exist") {
		t.Fatalf("%v, %+v", err, res)
	}
}

// The RBAC escalation check is the API server's, at the dry run: an
// account that may write Roles but holds less than the bundle's Role
// grants, and has no escalate, is held with the server's words.
func TestApplyHeldByEscalation(t *testing.T) {
	f := newSAFixture(t)
	grant(t, f.env.Client, f.installer(), "", []rbacv1.PolicyRule{
		{APIGroups: []string{"", "apps", "rbac.authorization.k8s.io", "apiextensions.k8s.io", "operators.coreos.com"},
			Resources: []string{"serviceaccounts", "deployments", "roles", "rolebindings", "clusterroles", "customresourcedefinitions", "operatorconditions"},
			Verbs:     []string{"get", "create", "patch"}},
	})
	req := Request{Namespace: f.ns, Subscription: "etcd", ServiceAccount: installer, Hops: []Hop{etcdHop(t, f.ns, "etcdoperator.v0.9.2")}}
	const escalation = "attempting to grant RBAC permissions not currently held"
	res, err := applyUntil(t, f.a, req, func(r *Result) bool {
		return notHeld(r) || len(r.MissingPermissions) == 1 && strings.Contains(r.MissingPermissions[0], escalation)
	})
	if err != nil || res.Phase != commitstatus.Held || res.Applied != 0 || len(res.MissingPermissions) != 1 ||
		!strings.Contains(res.MissingPermissions[0], escalation) {
		t.Fatalf("%v, %+v", err, res)
	}
}

func TestApplyRefusesWithoutImpersonation(t *testing.T) {
	a := &Applier{}
	req := Request{Namespace: "ops", Subscription: "etcd", ServiceAccount: installer,
		Hops: []Hop{{Bundle: "b", Objects: []*unstructured.Unstructured{{Object: map[string]any{
			"apiVersion": "v1", "kind": "ConfigMap", "metadata": map[string]any{"name": "c"}}}}}}}
	res, err := a.Apply(t.Context(), req)
	if err == nil || res.Phase != commitstatus.Failed || !strings.Contains(res.Reason, "cannot impersonate") {
		t.Fatalf("%v, %+v", err, res)
	}
}
