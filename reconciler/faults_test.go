package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	crmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/reconciler/apply"
)

// A Git host out of reach fails the fetch, which is retried with backoff
// and no subscription is touched; once the Repository points at a host
// that answers, it becomes Ready.
func TestGitUnreachable(t *testing.T) {
	f := newFleet(t, false, nil)
	f.plan(t)
	ns := f.env.NewNamespace(t)
	errorsBefore := reconcileErrors(t)
	key := stagingRepository(t, f, ns, "staging", "http://"+closedAddr(t)+"/fleet.git", gitPassword)
	eventually(t, "a failed reconcile", func() (bool, string) {
		n := reconcileErrors(t)
		return n >= errorsBefore+1, fmt.Sprintf("%v errors, %v before", n, errorsBefore)
	})
	failedAt := time.Now()
	obj := eventuallyReady(t, f, key, metav1.ConditionFalse, v1alpha1.FetchFailedReason)
	if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReconcilingCondition); c == nil ||
		c.Status != metav1.ConditionTrue || c.Reason != v1alpha1.ProgressingWithRetryReason {
		t.Errorf("Reconciling = %+v, want True %s", c, v1alpha1.ProgressingWithRetryReason)
	}
	if len(obj.Status.Subscriptions) != 0 {
		t.Errorf("subscriptions recorded without a fetch: %+v", obj.Status.Subscriptions)
	}
	eventually(t, "a FetchFailed warning", func() (bool, string) {
		return hasEvent(t, f, key, corev1.EventTypeWarning, v1alpha1.FetchFailedReason), "no such event"
	})

	// Retried without a spec change, but not at once: the rate limiter
	// waits 1 s after the first failure, then 2 s, ...
	eventually(t, "a retry", func() (bool, string) {
		n := reconcileErrors(t)
		return n >= errorsBefore+2, fmt.Sprintf("%v errors, %v before", n, errorsBefore)
	})
	if d := time.Since(failedAt); d < 500*time.Millisecond {
		t.Errorf("retried %v after the first failure: no backoff", d)
	}

	if err := f.env.Client.Get(t.Context(), key, obj); err != nil {
		t.Fatal(err)
	}
	obj.Spec.URL = f.url
	if err := f.env.Client.Update(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	obj = eventuallyReady(t, f, key, metav1.ConditionTrue, v1alpha1.SucceededReason)
	if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReconcilingCondition); c != nil {
		t.Errorf("still Reconciling: %+v", c)
	}
	if st, _ := f.subscription(t, key, "etcd-system", "etcd"); st.Phase != v1alpha1.SubscriptionInstalled || !st.Healthy {
		t.Errorf("subscription %+v", st)
	}
}

// stagingRepository creates the Repository name of cluster staging at url
// in ns, with a Secret of user olmops and password when that is set.
func stagingRepository(t *testing.T, f *fleet, ns, name, url, password string) client.ObjectKey {
	t.Helper()
	obj := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: v1alpha1.RepositorySpec{
		URL: url, Cluster: "staging", Interval: metav1.Duration{Duration: time.Hour},
		HealthTimeout: metav1.Duration{Duration: 20 * time.Second},
	}}
	if password != "" {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name + "-git"},
			Data: map[string][]byte{"username": []byte("olmops"), "password": []byte(password)}}
		if err := f.env.Client.Create(t.Context(), sec); err != nil {
			t.Fatal(err)
		}
		obj.Spec.SecretRef = &v1alpha1.LocalObjectReference{Name: sec.Name}
	}
	if err := f.env.Client.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	return client.ObjectKeyFromObject(obj)
}

// eventuallyReady waits for the Repository's Ready condition and returns
// the Repository.
func eventuallyReady(t *testing.T, f *fleet, key client.ObjectKey, status metav1.ConditionStatus, reason string) *v1alpha1.Repository {
	t.Helper()
	obj := &v1alpha1.Repository{}
	eventually(t, fmt.Sprintf("%s Ready=%s %s", key, status, reason), func() (bool, string) {
		if err := f.env.Client.Get(t.Context(), key, obj); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition)
		return c != nil && c.Status == status && c.Reason == reason, fmt.Sprintf("%+v", c)
	})
	return obj
}

// listEvents lists the Events of ns through both APIs, whichever the
// recorder writes.
func listEvents(t *testing.T, f *fleet, ns string) (*corev1.EventList, *eventsv1.EventList) {
	t.Helper()
	core, modern := &corev1.EventList{}, &eventsv1.EventList{}
	if err := f.env.Client.List(t.Context(), core, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	if err := f.env.Client.List(t.Context(), modern, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	return core, modern
}

// hasEvent reports an Event of type and reason about the Repository key.
func hasEvent(t *testing.T, f *fleet, key client.ObjectKey, typ, reason string) bool {
	t.Helper()
	core, modern := listEvents(t, f, key.Namespace)
	return slices.ContainsFunc(core.Items, func(e corev1.Event) bool {
		return e.InvolvedObject.Name == key.Name && e.Type == typ && e.Reason == reason
	}) || slices.ContainsFunc(modern.Items, func(e eventsv1.Event) bool {
		return e.Regarding.Name == key.Name && e.Type == typ && e.Reason == reason
	})
}

// reconcileErrors is how many reconciles of Repositories failed in this
// process, as controller-runtime counts them.
func reconcileErrors(t *testing.T) float64 {
	t.Helper()
	families, err := crmetrics.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range families {
		if mf.GetName() != "controller_runtime_reconcile_errors_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "controller" && l.GetValue() == "repository" {
					return m.GetCounter().GetValue()
				}
			}
		}
	}
	return 0
}

// planKinds are the kinds of staging's etcd plan, and the install
// namespace's.
var planKinds = []struct {
	gvk   schema.GroupVersionKind
	scope meta.RESTScope
}{
	{schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, meta.RESTScopeRoot},
	{schema.GroupVersionKind{Version: "v1", Kind: "ServiceAccount"}, meta.RESTScopeNamespace},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, meta.RESTScopeNamespace},
	{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "Role"}, meta.RESTScopeNamespace},
	{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "RoleBinding"}, meta.RESTScopeNamespace},
	{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRole"}, meta.RESTScopeRoot},
	{schema.GroupVersionKind{Group: "rbac.authorization.k8s.io", Version: "v1", Kind: "ClusterRoleBinding"}, meta.RESTScopeRoot},
	{schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, meta.RESTScopeRoot},
	{apply.OperatorConditionGVK, meta.RESTScopeNamespace},
}

// An API server that cannot be reached fails the pass, to be retried,
// and tells Git nothing; one that refuses the plan (here: a client that
// knows none of its kinds) fails the subscription and says so. No control
// plane runs: the client points at a closed port, and a static RESTMapper
// spares it the discovery it could not do.
func TestSyncAPIServerFaults(t *testing.T) {
	f := newFleetRepo(t, false, nil)
	f.plan(t) // staging is Automatic: its etcd plan is committed to main
	ctx := t.Context()
	repo, err := gitsource.Open(ctx, gitsource.Options{URL: f.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: gitPassword}})
	if err != nil {
		t.Fatal(err)
	}
	commit, err := repo.Resolve(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	scheme, err := Scheme()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &rest.Config{Host: "http://" + closedAddr(t), Timeout: 5 * time.Second}
	tests := []struct {
		name      string
		kinds     bool
		transient bool
	}{
		{name: "unreachable", kinds: true, transient: true},
		{name: "refused", kinds: false, transient: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mapper := meta.NewDefaultRESTMapper(nil)
			if tt.kinds {
				for _, k := range planKinds {
					mapper.Add(k.gvk, k.scope)
				}
			}
			c, err := client.New(cfg, client.Options{Scheme: scheme, Mapper: mapper})
			if err != nil {
				t.Fatal(err)
			}
			forge := &recordingForge{}
			s := &Syncer{Applier: &apply.Applier{Client: c, HealthTimeout: time.Second, EstablishTimeout: time.Second, PollInterval: 20 * time.Millisecond,
				Impersonate: func(string, string) (client.Client, error) { return c, nil }}}
			out, err := s.Sync(ctx, Target{ID: "faults/" + tt.name, Repo: repo, Commit: commit, Branch: "main", Cluster: "staging", Forge: fixedForge(forge)})
			if !tt.transient {
				checkRefused(t, out, err, forge)
				return
			}
			if err == nil || out != nil {
				t.Fatalf("Sync = %+v, %v; want no outcome and an error", out, err)
			}
			if !transient(err) {
				t.Errorf("the error is not transient: %v", err)
			}
			if sent := forge.sent(); len(sent) != 0 {
				t.Errorf("statuses posted while the API server was unreachable: %q", sent)
			}
		})
	}
}

// checkRefused checks the pass of an API server that refused the plan:
// the subscription failed, nothing was installed, and Git heard it.
func checkRefused(t *testing.T, out *Outcome, err error, forge *recordingForge) {
	t.Helper()
	if err != nil {
		t.Fatalf("Sync: %v; want the refusal in the Outcome", err)
	}
	if len(out.Subscriptions) != 1 {
		t.Fatalf("subscriptions %+v", out.Subscriptions)
	}
	st := out.Subscriptions[0]
	if out.Reason != v1alpha1.ApplyFailedReason || st.Phase != v1alpha1.SubscriptionFailed || st.InstalledBundle != "" || out.Settled {
		t.Errorf("outcome %+v, subscription %+v", out, st)
	}
	sent := forge.sent()
	if !slices.ContainsFunc(sent, func(s string) bool { return strings.Contains(s, " failure ") && strings.Contains(s, "failed: ") }) {
		t.Errorf("no failure status among %q", sent)
	}
	if !strings.Contains(st.Message, "no matches for kind") {
		t.Errorf("message %q does not say which kind is missing", st.Message)
	}
}

// Credentials stay out of conditions, events and logs, whether they come
// from a Secret or sit in spec.url, even in a URL that does not parse.
func TestSecretsNeverLeak(t *testing.T) {
	const leak = "hunter2" // in every password below, and nowhere else
	f := newFleet(t, false, nil)
	logs := captureLogs(t)
	ns := f.env.NewNamespace(t)
	withUser := func(password string) string {
		return strings.Replace(f.url, "http://", "http://olmops:"+password+"@", 1)
	}
	repos := []struct {
		name, url, password string
		// says is what the message must still tell a person.
		says string
	}{
		{name: "wrong-password", url: f.url, password: leak + "-SECRET-do-not-print", says: "authentication failed"},
		{name: "credentials-in-url", url: withUser(leak + "-SECRET-in-url"), says: "authentication failed"},
		// An unescaped % makes the URL unparsable.
		{name: "unparsable-url", url: withUser(leak + "-50%off"), says: "invalid URL escape"},
	}
	for _, r := range repos {
		stagingRepository(t, f, ns, r.name, r.url, r.password)
	}
	for _, r := range repos {
		key := client.ObjectKey{Namespace: ns, Name: r.name}
		obj := eventuallyReady(t, f, key, metav1.ConditionFalse, v1alpha1.FetchFailedReason)
		if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition); !strings.Contains(c.Message, r.says) {
			t.Errorf("%s: Ready says %q, want it to say %q", r.name, c.Message, r.says)
		}
		if status, err := json.Marshal(obj.Status); err != nil || strings.Contains(string(status), leak) {
			t.Errorf("%s: the status holds a password (%v): %s", r.name, err, status)
		}
		eventually(t, r.name+": a FetchFailed warning", func() (bool, string) {
			return hasEvent(t, f, key, corev1.EventTypeWarning, v1alpha1.FetchFailedReason), "no such event"
		})
	}
	core, modern := listEvents(t, f, ns)
	for _, e := range core.Items {
		if data, _ := json.Marshal(e); strings.Contains(string(data), leak) {
			t.Errorf("a core/v1 Event holds a password: %s", e.Message)
		}
	}
	for _, e := range modern.Items {
		if data, _ := json.Marshal(e); strings.Contains(string(data), leak) {
			t.Errorf("an events.k8s.io/v1 Event holds a password: %s", e.Note)
		}
	}
	// The capture works: the failures were logged.
	eventually(t, "the failures logged", func() (bool, string) {
		out := logs.String()
		return strings.Contains(out, "Reconciler error") && strings.Contains(out, "wrong-password") &&
			strings.Contains(out, "unparsable-url"), fmt.Sprintf("%d bytes of logs", len(out))
	})
	for line := range strings.Lines(logs.String()) {
		if strings.Contains(line, leak) {
			t.Errorf("a log line holds a password: %s", line)
		}
	}
}

// A controller killed while it applies leaves nothing recorded as
// installed; the next one, on the same cluster and repository, finishes
// the job: installed, healthy, its inventory whole, and Git told.
func TestKilledMidApply(t *testing.T) {
	f := newFleetRepo(t, false, nil)
	f.plan(t)
	f.startEnv(t)
	key := f.repository(t, "staging")
	const ns, sub = "etcd-system", "etcd"
	carrier := f.carrier(t, "staging", ns, sub)
	ctxEtcd := commitstatus.Context("staging", ns, sub)

	// Nothing plays the Deployment controller yet: the apply waits for a
	// rollout that does not come.
	stop := f.startManager(t)
	eventually(t, "applying", func() (bool, string) {
		st, saw := f.noteStatus(t, carrier, ctxEtcd)
		return st.State == gitsource.StatusPending && strings.HasPrefix(st.Description, "applying "), saw
	})
	stop()
	_, obj := f.subscription(t, key, ns, sub)
	for _, st := range obj.Status.Subscriptions {
		if st.InstalledBundle != "" {
			t.Fatalf("a killed pass recorded %s/%s as installed: %+v", st.Namespace, st.Name, st)
		}
	}

	f.startManager(t)
	t.Cleanup(kubetest.Rollout(context.Background(), f.env.Client, ns, 20*time.Millisecond))
	eventually(t, "installed", func() (bool, string) {
		st, _ := f.subscription(t, key, ns, sub)
		return st.Phase == v1alpha1.SubscriptionInstalled && st.Healthy && st.LastAppliedCommit == carrier, fmt.Sprintf("%+v", st)
	})
	st, _ := f.subscription(t, key, ns, sub)
	if want := planInventory(t, f, "staging", ns, sub); !slices.Equal(st.Inventory, want) {
		t.Errorf("inventory\n got %q\nwant %q", st.Inventory, want)
	}
	eventually(t, "success status", func() (bool, string) {
		note, saw := f.noteStatus(t, carrier, ctxEtcd)
		return note.State == gitsource.StatusSuccess && note.Description == st.InstalledBundle+" installed · healthy", saw
	})
}

// planInventory is what the inventory of a subscription holds once its
// plan on main is installed: every object of the plan's last hop.
func planInventory(t *testing.T, f *fleet, cluster, ns, sub string) []string {
	t.Helper()
	ctx := t.Context()
	repo, err := gitsource.Open(ctx, gitsource.Options{Path: f.dir})
	if err != nil {
		t.Fatal(err)
	}
	head, err := repo.Resolve(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	snap, err := repo.Snapshot(ctx, head)
	if err != nil {
		t.Fatal(err)
	}
	req, _, err := apply.ReadRequest(ctx, snap.FS(), "clusters/"+cluster+"/plans/"+ns+"/"+sub)
	if err != nil {
		t.Fatal(err)
	}
	var inv apply.Inventory
	for _, obj := range req.Hops[len(req.Hops)-1].Objects {
		gvk := obj.GroupVersionKind()
		m, err := f.env.Client.RESTMapper().RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			t.Fatal(err)
		}
		e := apply.Entry{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}
		if e.Namespace == "" && m.Scope.Name() == meta.RESTScopeNameNamespace {
			e.Namespace = ns
		}
		inv = append(inv, e)
	}
	return refs(inv)
}
