package reconciler

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/planner"
	"github.com/olmops/olmops/render"
)

const (
	gitPassword   = "s3cret-git-password"
	ghToken       = "gh-test-token-0123456789"
	webhookSecret = "webhook-secret"
)

// fleet is the example desired-state repository on the git server, a
// fake GitHub in front of it, a control plane and an olmops controller.
type fleet struct {
	dir, url string
	gh       *githubtest.Server
	env      *kubetest.Env
	hook     string // the push webhook's URL
}

// newFleet serves examples/ (plus extra files) and starts envtest and the
// controller against it. github selects the GitHub forge; without it,
// statuses are git notes.
func newFleet(t testing.TB, withGitHub bool, extra map[string][]byte) *fleet {
	t.Helper()
	f := newFleetRepo(t, withGitHub, extra)
	f.startEnv(t)
	f.hook = f.startController(t)
	t.Cleanup(kubetest.Rollout(context.Background(), f.env.Client, "", 20*time.Millisecond))
	return f
}

// startController runs olmops serve's manager, push webhook included,
// until the test ends and returns its webhook URL.
func (f *fleet) startController(t testing.TB) string {
	t.Helper()
	addr := closedAddr(t)
	f.runManager(t, Options{WebhookAddr: addr, WebhookSecret: []byte(webhookSecret)})
	return "http://" + addr + "/hooks/push"
}

// plan runs the planner from its own clone, as a CI job would.
func (f *fleet) plan(t testing.TB) *planner.Report {
	t.Helper()
	ctx := t.Context()
	repo, err := gitsource.Open(ctx, gitsource.Options{URL: f.url, CacheDir: t.TempDir(), Auth: gitsource.Auth{Username: "olmops", Password: gitPassword}})
	if err != nil {
		t.Fatal(err)
	}
	p := planner.New(planner.Options{Repo: repo, Push: true, Version: "v0.0.0-test", Backoff: time.Millisecond,
		Forge: func(r *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
			if f.gh == nil {
				return nil, nil
			}
			return github.New(ctx, github.Options{Owner: "acme", Repo: "fleet", Token: ghToken, BaseURL: f.gh.URL})
		}})
	report, err := p.Run(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := report.Err(); err != nil {
		t.Fatal(err)
	}
	return report
}

// repository creates the Secrets and the Repository of cluster.
func (f *fleet) repository(t testing.TB, cluster string) client.ObjectKey {
	t.Helper()
	ctx := t.Context()
	ns := f.env.NewNamespace(t)
	secrets := []*corev1.Secret{
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"}, Data: map[string][]byte{"username": []byte("olmops"), "password": []byte(gitPassword)}},
		{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "github"}, Data: map[string][]byte{"token": []byte(ghToken)}},
	}
	for _, s := range secrets {
		if err := f.env.Client.Create(ctx, s); err != nil {
			t.Fatal(err)
		}
	}
	obj := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cluster}, Spec: v1alpha1.RepositorySpec{
		URL: f.url, Cluster: cluster, Interval: metav1.Duration{Duration: time.Hour},
		HealthTimeout: metav1.Duration{Duration: 20 * time.Second},
		SecretRef:     &v1alpha1.LocalObjectReference{Name: "git"},
	}}
	if f.gh != nil {
		obj.Spec.Forge = &v1alpha1.ForgeSpec{Type: v1alpha1.ForgeGitHub, Owner: "acme", Repo: "fleet", BaseURL: f.gh.URL,
			TokenSecretRef: &v1alpha1.LocalObjectReference{Name: "github"}}
	}
	if err := f.env.Client.Create(ctx, obj); err != nil {
		t.Fatal(err)
	}
	return client.ObjectKeyFromObject(obj)
}

// push tells the controller's webhook that main moved, as GitHub would.
func (f *fleet) push(t testing.TB) {
	t.Helper()
	head := strings.TrimSpace(gittest.Git(t, f.dir, "rev-parse", "main"))
	body := fmt.Appendf(nil, `{"ref":"refs/heads/main","after":%q,"repository":{"clone_url":%q}}`, head, f.url)
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
		t.Fatalf("push webhook answered %s, want 202 Accepted", resp.Status)
	}
}

// carrier is the commit that last changed a plan folder on main.
func (f *fleet) carrier(t testing.TB, cluster, ns, sub string) string {
	t.Helper()
	return strings.TrimSpace(gittest.Git(t, f.dir, "log", "-1", "--first-parent", "--format=%H", "main", "--",
		"clusters/"+cluster+"/plans/"+ns+"/"+sub))
}

// eventually polls cond until it holds or 30 s pass; its string says
// what it saw, for the failure message.
func eventually(t testing.TB, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: gave up after 30s; last saw %s", what, saw)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// subscription reads one subscription's state from the Repository.
func (f *fleet) subscription(t testing.TB, key client.ObjectKey, ns, name string) (v1alpha1.SubscriptionStatus, *v1alpha1.Repository) {
	t.Helper()
	obj := &v1alpha1.Repository{}
	if err := f.env.Client.Get(t.Context(), key, obj); err != nil {
		t.Fatal(err)
	}
	for _, st := range obj.Status.Subscriptions {
		if st.Namespace == ns && st.Name == name {
			return st, obj
		}
	}
	return v1alpha1.SubscriptionStatus{}, obj
}

// githubStatus is the latest status of context on commit.
func (f *fleet) githubStatus(commit, context string) (githubtest.Status, bool) {
	var got githubtest.Status
	found := false
	for _, s := range f.gh.StatusesFor(commit) {
		if s.Context == context {
			got, found = s, true
		}
	}
	return got, found
}

// newFleetRepo serves examples/ (plus extra files; a nil one removes
// the example's) on the git server and starts nothing else: the test
// starts what it needs (startEnv, startManager, kubetest.Rollout) when it
// wants.
func newFleetRepo(t testing.TB, withGitHub bool, extra map[string][]byte) *fleet {
	t.Helper()
	files := map[string][]byte{}
	for k, v := range gittest.DirFiles(t, "../examples", "") {
		files[strings.TrimPrefix(k, "/")] = v
	}
	for k, v := range extra {
		files[k] = v
		if v == nil { // nil removes an example file
			delete(files, k)
		}
	}
	name := strings.ReplaceAll(strings.ToLower(t.Name()), "/", "-")
	gitServer.CreateRepo(t, name)
	f := &fleet{dir: gitServer.RepoDir(name), url: gitServer.RepoURL(name)}
	if withGitHub {
		files["olmops.yaml"] = []byte(strings.Replace(string(files["olmops.yaml"]), "spec:\n", "spec:\n  forge: {type: github, owner: acme, repo: fleet}\n", 1))
		f.gh = githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "fleet", Token: ghToken, GitDir: f.dir})
	}
	gittest.Commit(t, f.dir, "main", gittest.Change{Files: files, Message: "desired state"})
	return f
}

// startEnv starts the fleet's control plane, without a controller and
// without anything playing the Deployment controller.
func (f *fleet) startEnv(t testing.TB) {
	t.Helper()
	f.env = kubetest.Start(t, kubetest.WithOperatorConditionCRD(), crdDirs, kubetest.WithScheme(v1alpha1.AddToScheme))
	createInstallers(t, f.env.Client)
}

func kindRank(o *unstructured.Unstructured) int {
	if o.GetKind() == "Namespace" {
		return 0
	}
	return 1
}

// createInstallers creates, as the cluster's administrator, the service
// account staging's ClusterExtension is applied as, and its permissions
// (examples/installers), Namespaces first.
func createInstallers(t testing.TB, c client.Client) {
	t.Helper()
	objs, err := render.ReadFiles(os.DirFS("../examples/installers"), ".")
	if err != nil {
		t.Fatal(err)
	}
	slices.SortStableFunc(objs, func(a, b *unstructured.Unstructured) int {
		return cmp.Compare(kindRank(a), kindRank(b))
	})
	for _, obj := range objs {
		if err := c.Create(t.Context(), obj); err != nil {
			t.Fatalf("create %s %s: %v", obj.GetKind(), obj.GetName(), err)
		}
	}
}

// startManager runs a controller (without the push webhook) and returns
// stop, which cancels its context and waits for it to return, as when its
// pod is killed: the pass in flight ends with the context. The test's end
// stops it too.
func (f *fleet) startManager(t testing.TB) (stop func()) {
	t.Helper()
	return f.runManager(t, Options{WebhookAddr: "0"})
}

// runManager starts a manager with the tests' settings on top of opts.
func (f *fleet) runManager(t testing.TB, opts Options) (stop func()) {
	t.Helper()
	opts.MetricsAddr, opts.ProbeAddr, opts.CacheDir = "0", "0", t.TempDir()
	opts.Concurrency, opts.Recheck, opts.HealthPoll, opts.SkipNameValidation = 2, 200*time.Millisecond, 20*time.Millisecond, true
	mgr, err := NewManager(f.env.Config, opts)
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
	return stop
}

// closedAddr is a 127.0.0.1 address nothing listens on.
func closedAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// fixedForge is a Target.Forge that gives f whatever olmops.yaml says.
func fixedForge(f gitsource.Forge) func(*v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
	return func(*v1alpha1.RepositoryConfig) (gitsource.Forge, error) { return f, nil }
}
