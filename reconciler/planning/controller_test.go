package planning_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/reconciler"
)

const (
	ghToken       = "gh-test-token-0123456789"
	webhookSecret = "webhook-secret"
	etcdBranch    = "olmops/prod-east/etcd-system/etcd"
)

// fleet is the example repository on the git server with a GitHub fake
// in front, a control plane and olmops serve's manager with the push
// webhook: nothing runs olmops plan but the controller.
type fleet struct {
	dir, url, hook string
	gh             *githubtest.Server
	env            *kubetest.Env
	key            client.ObjectKey
}

func newFleet(t testing.TB) *fleet {
	t.Helper()
	f := newFleetOnly(t)
	f.startManager(t, nil)
	return f
}

// newFleetOnly is newFleet without a manager; edits change the
// example's files before they are committed.
func newFleetOnly(t testing.TB, edits ...func(files map[string][]byte)) *fleet {
	t.Helper()
	files := map[string][]byte{}
	for k, v := range gittest.DirFiles(t, "../../examples", "") {
		files[strings.TrimPrefix(k, "/")] = v
	}
	files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n", 1))
	for _, edit := range edits {
		edit(files)
	}
	f := &fleet{}
	name := strings.ToLower(t.Name())
	gitServer.CreateRepo(t, name)
	f.dir, f.url = gitServer.RepoDir(name), gitServer.RepoURL(name)
	f.gh = githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "fleet", Token: ghToken, GitDir: f.dir})
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: files, Message: "desired state"})
	f.env = kubetest.Start(t, kubetest.WithCRDDirs("../../config/crd/bases"), kubetest.WithScheme(v1alpha1.AddToScheme))
	return f
}

// startManager runs olmops serve's manager, its forge requests sent by
// hc (nil: the default); stop cancels its context, as a killed pod's
// ends, and waits for it to return.
func (f *fleet) startManager(t testing.TB, hc *http.Client) (stop func()) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	mgr, err := reconciler.NewManager(f.env.Config, reconciler.Options{
		MetricsAddr: "0", ProbeAddr: "0", WebhookAddr: addr, WebhookSecret: []byte(webhookSecret),
		CacheDir: t.TempDir(), Concurrency: 1, SkipNameValidation: true, Version: "v0.0.0-test", HTTPClient: hc,
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Errorf("manager: %v", err)
			}
		})
	}
	t.Cleanup(stop)
	f.hook = "http://" + addr + "/hooks/push"
	// The webhook listens once the manager's caches started: a push sent
	// before would be refused.
	eventually(t, "the webhook listens", func() (bool, string) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			return false, err.Error()
		}
		c.Close()
		return true, ""
	})
	return stop
}

// planner creates the Secrets and a Planner of every cluster, with an
// interval long enough that only pushes and spec changes wake it; edits
// change it before it is created, in its namespace ns.
func (f *fleet) planner(t testing.TB, edits ...func(ns string, obj *v1alpha1.Planner)) {
	t.Helper()
	ctx := t.Context()
	ns := f.env.NewNamespace(t)
	for _, s := range []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"}, Data: map[string][]byte{"username": []byte("olmops"), "password": []byte(gitPassword)}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "github"}, Data: map[string][]byte{"token": []byte(ghToken)}},
	} {
		if err := f.env.Client.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	obj := &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "fleet"}, Spec: v1alpha1.PlannerSpec{
		URL: f.url, Interval: metav1.Duration{Duration: time.Hour},
		SecretRef: &v1alpha1.LocalObjectReference{Name: "git"},
		Forge: &v1alpha1.ForgeSpec{Type: v1alpha1.ForgeGitHub, Owner: "acme", Repo: "fleet", BaseURL: f.gh.URL,
			TokenSecretRef: &v1alpha1.LocalObjectReference{Name: "github"}},
	}}
	for _, edit := range edits {
		edit(ns, obj)
	}
	if err := f.env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	f.key = client.ObjectKeyFromObject(obj)
}

func (f *fleet) get(t testing.TB) *v1alpha1.Planner {
	t.Helper()
	obj := &v1alpha1.Planner{}
	if err := f.env.Client.Get(t.Context(), f.key, obj); err != nil {
		t.Fatal(err)
	}
	return obj
}

func (f *fleet) head(t testing.TB) string {
	return strings.TrimSpace(gittest.Git(t, f.dir, "rev-parse", "main"))
}

// push tells the webhook that main moved, signed as GitHub signs.
func (f *fleet) push(t testing.TB) {
	t.Helper()
	body := fmt.Appendf(nil, `{"ref":"refs/heads/main","after":%q,"repository":{"clone_url":%q}}`, f.head(t), f.url)
	mac := hmac.New(sha256.New, []byte(webhookSecret))
	mac.Write(body)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, f.hook, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		t.Fatalf("push webhook answered %s, want 202 Accepted (a Planner of the URL queued)", resp.Status)
	}
}

// eventually polls cond until it holds or 60 s pass.
func eventually(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	eventuallyWithin(t, 60*time.Second, what, cond)
}

// eventuallyWithin polls cond every 20 ms until it holds or limit passes.
func eventuallyWithin(t testing.TB, limit time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: gave up after %v; last saw %s", what, limit, saw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// edit changes the Planner as kubectl edit would.
func (f *fleet) edit(t testing.TB, change func(*v1alpha1.Planner)) {
	t.Helper()
	obj := f.get(t)
	change(obj)
	if err := f.env.Client.Update(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
}

// planned waits for a pass that planned main's head and succeeded.
func (f *fleet) planned(t testing.TB) *v1alpha1.Planner {
	t.Helper()
	var obj *v1alpha1.Planner
	eventually(t, "planned "+f.head(t), func() (bool, string) {
		obj = f.get(t)
		ready := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition)
		return ready != nil && ready.Status == metav1.ConditionTrue && obj.Status.LastPlannedCommit == f.head(t) &&
			obj.Status.ObservedGeneration == obj.Generation, fmt.Sprintf("%+v", obj.Status)
	})
	return obj
}

func proposal(obj *v1alpha1.Planner, branch string) (v1alpha1.ProposalStatus, bool) {
	for _, p := range obj.Status.Proposals {
		if p.Branch == branch {
			return p, true
		}
	}
	return v1alpha1.ProposalStatus{}, false
}

// The planning controller alone, on GitHub: a Planner proposes, a merge
// pushed to main opens the next proposal, an unchanged
// pass proposes nothing, a broken commit stalls with its file and line
// and leaves the proposals be, a rate-limited forge is retried without
// duplicates, and a pass out of time records why.
func TestPlanningController(t *testing.T) {
	f := newFleet(t)
	f.planner(t)
	pulls := "/repos/acme/fleet/pulls"

	t.Run("a new Planner proposes and commits", func(t *testing.T) {
		obj := f.planned(t)
		p, ok := proposal(obj, etcdBranch)
		pr, exists := f.gh.PR(1)
		if !ok || !exists || p.Number != 1 || p.URL == "" || p.State != "open" || p.TargetBundle != "etcdoperator.v0.9.2" || p.Commit != pr.HeadSHA {
			t.Fatalf("proposal in status %+v (found %v), PR #1 %+v (exists %v)", p, ok, pr, exists)
		}
		// staging is Automatic: its plans are on main, committed by olmops.
		if log := gittest.Git(t, f.dir, "log", "--format=%an %s", "main"); !strings.Contains(log, "olmops olmops: plan staging") {
			t.Errorf("no plan commit for staging on main:\n%s", log)
		}
	})

	t.Run("a pass without a change proposes nothing", func(t *testing.T) {
		before, head, pr1 := f.gh.CountRequests(http.MethodPost, pulls), f.head(t), mustPR(t, f.gh, 1)
		f.push(t) // same commit: not even planned
		obj := f.get(t)
		obj.Spec.Clusters = []string{"prod-east", "staging"} // a new generation: planned again
		if err := f.env.Client.Update(t.Context(), obj); err != nil {
			t.Fatal(err)
		}
		f.planned(t)
		if _, ok := f.gh.PR(2); ok {
			t.Error("an unchanged pass opened PR #2")
		}
		if n := f.gh.CountRequests(http.MethodPost, pulls); n != before {
			t.Errorf("an unchanged pass created %d pull requests", n-before)
		}
		if got := f.head(t); got != head {
			t.Errorf("an unchanged pass moved main from %s to %s", head, got)
		}
		if got := mustPR(t, f.gh, 1).HeadSHA; got != pr1.HeadSHA {
			t.Errorf("an unchanged pass moved PR #1 from %s to %s", pr1.HeadSHA, got)
		}
	})

	t.Run("a reconcile request plans now; suspend says so", func(t *testing.T) {
		// Nothing changed and the interval is far: only the request plans,
		// and planning asks the forge for its pull requests.
		asked := f.gh.CountRequests(http.MethodGet, pulls)
		f.edit(t, func(obj *v1alpha1.Planner) {
			obj.Annotations = map[string]string{v1alpha1.ReconcileRequestAnnotation: "first"}
		})
		eventually(t, "request handled", func() (bool, string) {
			obj := f.get(t)
			return obj.Status.LastHandledReconcileAt == "first" && meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.ReadyCondition), fmt.Sprintf("%+v", obj.Status)
		})
		if f.gh.CountRequests(http.MethodGet, pulls) == asked {
			t.Error("the requested pass did not plan")
		}
		f.edit(t, func(obj *v1alpha1.Planner) { obj.Spec.Suspend = true })
		eventually(t, "Suspended", func() (bool, string) {
			obj := f.get(t)
			return meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.SuspendedCondition), fmt.Sprintf("%+v", obj.Status)
		})
		f.edit(t, func(obj *v1alpha1.Planner) {
			obj.Spec.Suspend = false
			obj.Annotations[v1alpha1.ReconcileRequestAnnotation] = "second"
		})
		eventually(t, "resumed", func() (bool, string) {
			obj := f.get(t)
			return obj.Status.LastHandledReconcileAt == "second" && meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.SuspendedCondition) == nil,
				fmt.Sprintf("%+v", obj.Status)
		})
		f.planned(t)
	})

	t.Run("a merge pushed to main opens the next proposal", func(t *testing.T) {
		f.gh.Merge(t, 1)
		start := time.Now()
		f.push(t)
		obj := f.planned(t)
		t.Logf("push webhook → proposal opened and recorded in %v", time.Since(start))
		p, ok := proposal(obj, etcdBranch)
		if !ok || p.Number != 2 || p.TargetBundle != "etcdoperator.v0.9.4" || p.State != "open" {
			t.Fatalf("proposal %+v (found %v), want PR #2 to etcdoperator.v0.9.4", p, ok)
		}
		if pr, ok := f.gh.PR(2); !ok || pr.Head != etcdBranch || pr.State != "open" {
			t.Errorf("PR #2 = %+v", pr)
		}
	})

	t.Run("a broken commit stalls and leaves the proposals be", func(t *testing.T) {
		pr2 := mustPR(t, f.gh, 2)
		before := f.gh.CountRequests(http.MethodPost, pulls)
		const sub = "clusters/prod-east/subscriptions/etcd.yaml"
		gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{sub: []byte("apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata:\n  name: etcd\n  namespace: etcd-system\nspec:\n  nmae: etcd\n")}, Message: "a typo"})
		f.push(t)
		var stalledCond *metav1.Condition
		eventually(t, "stalled", func() (bool, string) {
			obj := f.get(t)
			stalledCond = meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.StalledCondition)
			return stalledCond != nil && stalledCond.Status == metav1.ConditionTrue && obj.Status.LastFetchedCommit == f.head(t), fmt.Sprintf("%+v", obj.Status)
		})
		if stalledCond.Reason != v1alpha1.InvalidInputReason || !regexp.MustCompile(regexp.QuoteMeta(sub)+`:\d+`).MatchString(stalledCond.Message) {
			t.Errorf("Stalled = %+v, want InvalidInput naming %s:line", stalledCond, sub)
		}
		obj := f.get(t)
		if p, ok := proposal(obj, etcdBranch); !ok || p.Number != 2 {
			t.Errorf("the proposal left the status: %+v", obj.Status.Proposals)
		}
		if obj.Status.LastPlannedCommit == f.head(t) {
			t.Error("a broken commit is recorded as planned")
		}
		if got := mustPR(t, f.gh, 2); got.HeadSHA != pr2.HeadSHA || got.State != "open" {
			t.Errorf("PR #2 changed: %+v, was %+v", got, pr2)
		}
		if n := f.gh.CountRequests(http.MethodPost, pulls); n != before {
			t.Errorf("a broken commit created %d pull requests", n-before)
		}
	})

	t.Run("a rate-limited forge is retried without duplicates", func(t *testing.T) {
		before := f.gh.CountRequests(http.MethodPost, pulls)
		f.gh.ExhaustRateLimit(time.Now().Add(time.Second))
		gittest.Commit(t, f.dir, "main", gittest.Change{Files: map[string][]byte{"clusters/prod-east/subscriptions/etcd.yaml": mustFile(t, "../../examples/clusters/prod-east/subscriptions/etcd.yaml")}, Message: "fix the typo"})
		f.push(t)
		eventually(t, "Ready=False with the next attempt", func() (bool, string) {
			c := meta.FindStatusCondition(f.get(t).Status.Conditions, v1alpha1.ReadyCondition)
			return c != nil && c.Reason == v1alpha1.ProposeFailedReason && strings.Contains(c.Message, "next attempt in"), fmt.Sprintf("%+v", c)
		})
		obj := f.planned(t)
		if p, ok := proposal(obj, etcdBranch); !ok || p.Number != 2 {
			t.Errorf("proposal %+v (found %v), want PR #2 still", p, ok)
		}
		if _, ok := f.gh.PR(3); ok {
			t.Error("the retry opened PR #3")
		}
		if n := f.gh.CountRequests(http.MethodPost, pulls); n != before {
			t.Errorf("the retry created %d pull requests", n-before)
		}
	})

	t.Run("a pass out of time says so", func(t *testing.T) { testTimeout(t, f) })
}

// testTimeout: a pass that runs out of spec.timeout (a Git server that
// never answers) still records why, with the time of the next attempt.
func testTimeout(t *testing.T, f *fleet) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		var held []net.Conn // never answered, closed with the test
		defer func() {
			for _, c := range held {
				c.Close()
			}
		}()
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			held = append(held, c)
		}
	}()
	ns := f.env.NewNamespace(t)
	obj := &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "silent"}, Spec: v1alpha1.PlannerSpec{
		URL: "http://" + l.Addr().String() + "/fleet.git", Interval: metav1.Duration{Duration: time.Hour},
		Timeout: metav1.Duration{Duration: time.Second}}}
	if err := f.env.Client.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	key := client.ObjectKeyFromObject(obj)
	eventually(t, "FetchFailed recorded", func() (bool, string) {
		got := &v1alpha1.Planner{}
		if err := f.env.Client.Get(t.Context(), key, got); err != nil {
			t.Fatal(err)
		}
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ReadyCondition)
		return c != nil && c.Reason == v1alpha1.FetchFailedReason && strings.Contains(c.Message, "next attempt in"), fmt.Sprintf("%+v", c)
	})
}

func mustPR(t testing.TB, gh *githubtest.Server, n int) githubtest.PR {
	t.Helper()
	pr, ok := gh.PR(n)
	if !ok {
		t.Fatalf("no PR #%d", n)
	}
	return pr
}

func mustFile(t testing.TB, path string) []byte {
	t.Helper()
	return gittest.DirFiles(t, path[:strings.LastIndex(path, "/")], "")["/"+path[strings.LastIndex(path, "/")+1:]]
}
