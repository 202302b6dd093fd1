package reconciler

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/reconciler/apply"
)

// lifecycle is one Repository of staging and a RepositoryReconciler
// called by hand, one pass per call: unlike a running manager, it lets a
// test say what a pass did not do.
type lifecycle struct {
	f      *fleet
	r      *RepositoryReconciler
	rec    *events.FakeRecorder
	key    client.ObjectKey
	ns, id string
}

// newLifecycle serves examples/ with staging's etcd overlay, plans it,
// starts a control plane (with Deployments rolled out by a stand-in
// kubelet) and creates the Repository with spec changed by edit.
func newLifecycle(t *testing.T, edit func(*v1alpha1.RepositorySpec)) *lifecycle {
	t.Helper()
	f := newFleetRepo(t, false, overlay(extraConfigMap))
	f.plan(t)
	f.startEnv(t)
	t.Cleanup(kubetest.Rollout(t.Context(), f.env.Client, "", 20*time.Millisecond))
	l := &lifecycle{f: f, rec: events.NewFakeRecorder(1000)}
	l.r = &RepositoryReconciler{Client: f.env.Client, APIReader: f.env.Client, Recorder: l.rec,
		Syncer: &Syncer{Applier: &apply.Applier{Client: f.env.Client, PollInterval: 20 * time.Millisecond,
			Impersonate: apply.NewImpersonator(f.env.Config, client.Options{Scheme: f.env.Scheme, Mapper: f.env.Client.RESTMapper()}).Client}},
		Sources: &Sources{CacheDir: t.TempDir()}}
	l.ns = f.env.NewNamespace(t)
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: l.ns, Name: "git"},
		Data: map[string][]byte{"username": []byte("olmops"), "password": []byte(gitPassword)}}
	obj := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: l.ns, Name: "staging"}, Spec: v1alpha1.RepositorySpec{
		URL: f.url, Cluster: "staging", Interval: metav1.Duration{Duration: time.Hour},
		HealthTimeout: metav1.Duration{Duration: 20 * time.Second},
		SecretRef:     &v1alpha1.LocalObjectReference{Name: "git"},
	}}
	if edit != nil {
		edit(&obj.Spec)
	}
	for _, o := range []client.Object{sec, obj} {
		if err := f.env.Client.Create(t.Context(), o); err != nil {
			t.Fatal(err)
		}
	}
	l.key = client.ObjectKeyFromObject(obj)
	l.id = l.key.String()
	return l
}

// pass runs one reconcile and returns the Repository after it, and the
// events it recorded ("Type Reason message").
func (l *lifecycle) pass(t *testing.T) (*v1alpha1.Repository, []string) {
	t.Helper()
	if _, err := l.r.Reconcile(t.Context(), ctrl.Request{NamespacedName: l.key}); err != nil {
		t.Fatalf("Reconcile: %v", err)
	}
	var evs []string
	for len(l.rec.Events) > 0 {
		evs = append(evs, <-l.rec.Events)
	}
	obj := &v1alpha1.Repository{}
	if err := l.f.env.Client.Get(t.Context(), l.key, obj); err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return obj, evs
}

// edit changes the Repository's spec, as kubectl edit would.
func (l *lifecycle) edit(t *testing.T, change func(*v1alpha1.RepositorySpec)) {
	t.Helper()
	obj := &v1alpha1.Repository{}
	if err := l.f.env.Client.Get(t.Context(), l.key, obj); err != nil {
		t.Fatal(err)
	}
	change(&obj.Spec)
	if err := l.f.env.Client.Update(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

// annotate asks for a pass, as olmops reconcile and flux reconcile do.
func (l *lifecycle) annotate(t *testing.T, requestedAt string) {
	t.Helper()
	obj := &v1alpha1.Repository{}
	if err := l.f.env.Client.Get(t.Context(), l.key, obj); err != nil {
		t.Fatal(err)
	}
	obj.SetAnnotations(map[string]string{v1alpha1.ReconcileRequestAnnotation: requestedAt})
	if err := l.f.env.Client.Update(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

// commit writes files on main and plans, as a user and CI would.
func (l *lifecycle) commit(t *testing.T, msg string, files map[string][]byte) {
	t.Helper()
	gittest.Commit(t, l.f.dir, "main", gittest.Change{Files: files, Message: msg})
	l.f.plan(t)
}

// exists reports whether obj's kind named ns/name is in the cluster.
func (l *lifecycle) exists(t *testing.T, obj client.Object, ns, name string) bool {
	t.Helper()
	err := l.f.env.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: name}, obj)
	if err != nil && !apierrors.IsNotFound(err) {
		t.Fatal(err)
	}
	return err == nil
}

func condition(obj *v1alpha1.Repository, typ string) string {
	c := meta.FindStatusCondition(obj.Status.Conditions, typ)
	if c == nil {
		return "absent"
	}
	return string(c.Status) + " " + c.Reason
}

func hasEventLike(evs []string, prefix string) bool {
	return slices.ContainsFunc(evs, func(e string) bool { return strings.HasPrefix(e, prefix) })
}

const stagingEtcd = "clusters/staging/subscriptions/etcd.yaml"

// A Repository with prune: false: suspended, it does nothing; resumed, it
// installs; what leaves the plans stays in the cluster, and a removed
// subscription is orphaned, not deleted. A cluster the repository lacks
// stalls it until the spec is fixed; once deleted, it is forgotten.
func TestRepositoryLifecycle(t *testing.T) {
	const ns = "etcd-system"
	l := newLifecycle(t, func(s *v1alpha1.RepositorySpec) { s.Suspend, s.Prune = true, new(false) })

	t.Run("suspended does nothing and says so", func(t *testing.T) {
		l.annotate(t, "first")
		obj, evs := l.pass(t)
		if obj.Status.LastFetchedCommit != "" || len(obj.Status.Conditions) != 1 || len(evs) != 0 {
			t.Errorf("a suspended Repository was worked on: status %+v, events %q", obj.Status, evs)
		}
		if got := condition(obj, v1alpha1.SuspendedCondition); got != "True "+v1alpha1.SuspendedReason {
			t.Errorf("Suspended = %s, want True %s", got, v1alpha1.SuspendedReason)
		}
		if obj.Status.LastHandledReconcileAt != "" {
			t.Errorf("a suspended Repository recorded reconcile request %q as handled", obj.Status.LastHandledReconcileAt)
		}
		if l.exists(t, &appsv1.Deployment{}, ns, "etcd-operator") {
			t.Error("a suspended Repository's plan was applied")
		}
	})

	t.Run("resumed installs", func(t *testing.T) {
		l.edit(t, func(s *v1alpha1.RepositorySpec) { s.Suspend = false })
		l.annotate(t, "second")
		obj, _ := l.pass(t)
		if got := condition(obj, v1alpha1.ReadyCondition); got != "True "+v1alpha1.SucceededReason {
			t.Fatalf("Ready = %s: %+v", got, obj.Status)
		}
		if got := condition(obj, v1alpha1.SuspendedCondition); got != "absent" {
			t.Errorf("Suspended = %s once resumed, want it gone", got)
		}
		if obj.Status.LastHandledReconcileAt != "second" {
			t.Errorf("lastHandledReconcileAt = %q, want the request the pass handled, %q", obj.Status.LastHandledReconcileAt, "second")
		}
		if !l.exists(t, &corev1.ConfigMap{}, ns, "etcd-extra") {
			t.Fatal("the overlay's ConfigMap was not applied")
		}
	})

	t.Run("prune false keeps what left the plan", func(t *testing.T) {
		l.commit(t, "staging: drop the overlay", map[string][]byte{stagingOverlay: nil})
		obj, _ := l.pass(t)
		if got := condition(obj, v1alpha1.ReadyCondition); got != "True "+v1alpha1.SucceededReason {
			t.Fatalf("Ready = %s: %+v", got, obj.Status)
		}
		if !l.exists(t, &corev1.ConfigMap{}, ns, "etcd-extra") {
			t.Error("prune: false, yet the ConfigMap that left the plan was deleted")
		}
	})

	t.Run("prune false orphans a removed subscription", func(t *testing.T) {
		l.commit(t, "staging: remove etcd", map[string][]byte{stagingEtcd: nil})
		obj, evs := l.pass(t)
		if len(obj.Status.Subscriptions) != 0 {
			t.Errorf("subscriptions %+v, want none", obj.Status.Subscriptions)
		}
		if !l.exists(t, &appsv1.Deployment{}, ns, "etcd-operator") {
			t.Error("prune: false, yet the removed subscription's Deployment was deleted")
		}
		if !hasEventLike(evs, "Normal Orphaned "+ns+"/etcd: its plan left the branch; pruning is off") {
			t.Errorf("no Orphaned event among %q", evs)
		}
	})

	t.Run("a cluster the repository lacks stalls it", func(t *testing.T) {
		l.edit(t, func(s *v1alpha1.RepositorySpec) { s.Cluster = "nowhere" })
		obj, _ := l.pass(t)
		if got := condition(obj, v1alpha1.StalledCondition); got != "True "+v1alpha1.InvalidPlanReason {
			t.Errorf("Stalled = %s, want True %s", got, v1alpha1.InvalidPlanReason)
		}
		if got := condition(obj, v1alpha1.ReadyCondition); got != "False "+v1alpha1.InvalidPlanReason {
			t.Errorf("Ready = %s", got)
		}
		l.edit(t, func(s *v1alpha1.RepositorySpec) { s.Cluster = "staging" })
		obj, _ = l.pass(t)
		if got := condition(obj, v1alpha1.StalledCondition); got != "absent" {
			t.Errorf("Stalled = %s once the spec is fixed, want it gone", got)
		}
	})

	t.Run("deleted is forgotten", func(t *testing.T) {
		l.commit(t, "staging: etcd again", map[string][]byte{stagingEtcd: gittest.DirFiles(t, "../examples", "")["/"+stagingEtcd]})
		l.pass(t)
		if !l.remembers() {
			t.Fatal("a pass left nothing to forget: the check below proves nothing")
		}
		obj := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: l.key.Namespace, Name: l.key.Name}}
		if err := l.f.env.Client.Delete(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		l.pass(t)
		if l.remembers() {
			t.Error("the deleted Repository's inventories, statuses or source are still remembered")
		}
	})
}

// remembers reports whether the reconciler holds anything of the
// Repository: inventories, posted statuses, its source.
func (l *lifecycle) remembers() bool {
	s := l.r.Syncer
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.inventories {
		if strings.HasPrefix(k, l.id+"\x00") {
			return true
		}
	}
	for k := range s.posted {
		if strings.HasPrefix(k, l.id+"\x00") {
			return true
		}
	}
	l.r.Sources.mu.Lock()
	defer l.r.Sources.mu.Unlock()
	_, ok := l.r.Sources.objects[l.id]
	return ok
}

// With pruning on, a removed subscription's objects are deleted; one the
// API server refuses to delete keeps the subscription in the status as
// Failed, with what is left, until a later pass deletes it.
func TestPruneFailed(t *testing.T) {
	const ns = "etcd-system"
	l := newLifecycle(t, nil)
	if obj, _ := l.pass(t); condition(obj, v1alpha1.ReadyCondition) != "True "+v1alpha1.SucceededReason {
		t.Fatalf("not installed: %+v", obj.Status)
	}
	undeny := denyDelete(t, l.f, ns, "etcd-extra")
	l.commit(t, "staging: remove etcd", map[string][]byte{stagingEtcd: nil})

	obj, evs := l.pass(t)
	if got := condition(obj, v1alpha1.ReadyCondition); got != "False "+v1alpha1.PruneFailedReason {
		t.Errorf("Ready = %s, want False %s", got, v1alpha1.PruneFailedReason)
	}
	if len(obj.Status.Subscriptions) != 1 {
		t.Fatalf("subscriptions %+v, want etcd's, failed", obj.Status.Subscriptions)
	}
	st := obj.Status.Subscriptions[0]
	if st.Phase != v1alpha1.SubscriptionFailed || !strings.HasPrefix(st.Message, "remove: ") ||
		!slices.Contains(st.Inventory, "v1/ConfigMap/"+ns+"/etcd-extra") {
		t.Errorf("subscription %+v, want Failed, remove: ..., the ConfigMap still in its inventory", st)
	}
	if obj.Status.LastAppliedCommit == gitHead(t, l.f) {
		t.Error("a pass that left objects behind is recorded as applied")
	}
	if !hasEventLike(evs, "Warning PruneFailed "+ns+"/etcd: ") {
		t.Errorf("no PruneFailed event among %q", evs)
	}
	if l.exists(t, &appsv1.Deployment{}, ns, "etcd-operator") {
		t.Error("the objects the API server let go were not deleted")
	}

	undeny()
	obj, evs = l.pass(t)
	if len(obj.Status.Subscriptions) != 0 || condition(obj, v1alpha1.ReadyCondition) != "True "+v1alpha1.SucceededReason {
		t.Errorf("after the refusal lifted: %+v", obj.Status)
	}
	if l.exists(t, &corev1.ConfigMap{}, ns, "etcd-extra") {
		t.Error("the ConfigMap is still there once its deletion is allowed")
	}
	if !hasEventLike(evs, "Normal Removed "+ns+"/etcd: ") {
		t.Errorf("no Removed event among %q", evs)
	}
}

// denyDelete makes the API server refuse to delete ConfigMap ns/name, with
// a ValidatingAdmissionPolicy as a cluster admin would, and returns what
// lifts it. Both wait until the API server enforces the change.
func denyDelete(t *testing.T, f *fleet, ns, name string) (undeny func()) {
	t.Helper()
	ctx := t.Context()
	policy := &admissionregistrationv1.ValidatingAdmissionPolicy{
		ObjectMeta: metav1.ObjectMeta{Name: "keep-" + name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicySpec{
			FailurePolicy: new(admissionregistrationv1.Fail),
			MatchConstraints: &admissionregistrationv1.MatchResources{ResourceRules: []admissionregistrationv1.NamedRuleWithOperations{{
				RuleWithOperations: admissionregistrationv1.RuleWithOperations{
					Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Delete},
					Rule:       admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}},
				},
			}}},
			Validations: []admissionregistrationv1.Validation{{
				Expression: fmt.Sprintf("!(oldObject.metadata.namespace == %q && oldObject.metadata.name == %q)", ns, name),
				Message:    name + " is kept by a test",
			}},
		},
	}
	binding := &admissionregistrationv1.ValidatingAdmissionPolicyBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "keep-" + name},
		Spec: admissionregistrationv1.ValidatingAdmissionPolicyBindingSpec{PolicyName: policy.Name,
			ValidationActions: []admissionregistrationv1.ValidationAction{admissionregistrationv1.Deny}},
	}
	for _, o := range []client.Object{policy, binding} {
		if err := f.env.Client.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	// A dry-run delete goes through admission without deleting.
	denied := func() (bool, string) {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
		err := f.env.Client.Delete(ctx, cm, client.DryRunAll)
		return apierrors.IsInvalid(err) || apierrors.IsForbidden(err), fmt.Sprint(err)
	}
	eventually(t, "deletion of "+name+" denied", denied)
	return func() {
		t.Helper()
		for _, o := range []client.Object{binding, policy} {
			if err := f.env.Client.Delete(ctx, o); err != nil {
				t.Fatal(err)
			}
		}
		eventually(t, "deletion of "+name+" allowed", func() (bool, string) { ok, saw := denied(); return !ok, saw })
	}
}
