package e2e

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/test/harness"
)

// The GitHub repository the fake serves, and the token olmops and the
// controller present to it.
const (
	ghOwner       = "acme"
	ghRepo        = "fleet"
	ghToken       = "e2e-github-token"
	ghTokenSecret = "github-token"
)

// hubFleet is a desired-state repository whose forge is the GitHub fake,
// backed by the git server's bare repository, so that a merge on the fake
// moves main on the git server as GitHub's merge button would.
type hubFleet struct {
	*harness.Git
	gh      *githubtest.Server
	cluster string // the one cluster olmops.yaml lists
	cache   string
}

// newHubFleet pushes files and an olmops.yaml for cluster (Classic, with
// approval, the catalogs named, the GitHub fake as forge) to a new git
// server; files ending in / copy that folder of examples/.
func newHubFleet(t *testing.T, cluster, approval string, catalogs []string, files map[string]string) *hubFleet {
	t.Helper()
	g, err := harness.StartGit(t.Context(), filepath.Join(t.TempDir(), "fleet"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	f := &hubFleet{Git: g, cluster: cluster, cache: t.TempDir(),
		gh: githubtest.NewServer(t, githubtest.Options{Owner: ghOwner, Repo: ghRepo, Token: ghToken, GitDir: g.Bare})}
	// The registry's credentials are nobody's: the user's docker config
	// stays out.
	g.Env = []string{"GITHUB_TOKEN=" + ghToken, "DOCKER_CONFIG=" + t.TempDir(), "REGISTRY_AUTH_FILE="}
	f.write(t, "olmops.yaml", f.config(approval, catalogs))
	for name, content := range files {
		if dir, ok := strings.CutSuffix(name, "/"); ok {
			if err := os.CopyFS(filepath.Join(g.Work, dir), os.DirFS(filepath.Join("..", "..", "examples", dir))); err != nil {
				t.Fatal(err)
			}
			continue
		}
		f.write(t, name, content)
	}
	for _, args := range [][]string{{"add", "--all"}, {"commit", "--quiet", "-m", "desired state"}, {"push", "--quiet", "origin", "main"}} {
		git(t, g, args...)
	}
	return f
}

func (f *hubFleet) config(approval string, catalogs []string) string {
	var b strings.Builder
	b.WriteString("apiVersion: config.olmops.io/v1alpha1\nkind: RepositoryConfig\nmetadata:\n  name: e2e\nspec:\n  catalogs:\n")
	for _, c := range catalogs {
		fmt.Fprintf(&b, "    - name: %s\n      path: catalogs/%s\n", c, c)
	}
	fmt.Fprintf(&b, "  clusters:\n    - name: %s\n      path: clusters/%s\n      targetBranch: main\n      approval: %s\n      successorPolicy: Classic\n",
		f.cluster, f.cluster, approval)
	fmt.Fprintf(&b, "  forge:\n    type: github\n    owner: %s\n    repo: %s\n    baseURL: %s/api/v3/\n    tokenSecret:\n      name: %s\n",
		ghOwner, ghRepo, f.gh.URL, ghTokenSecret)
	return b.String()
}

// subscription is an OLM classic Subscription to package's channel from
// catalog operatorhub.
func subscription(ns, name, pkg, channel, approval, startingCSV string) string {
	s := fmt.Sprintf("apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata:\n  name: %s\n  namespace: %s\n"+
		"spec:\n  name: %s\n  channel: %s\n  source: operatorhub\n  sourceNamespace: olm\n  installPlanApproval: %s\n",
		name, ns, pkg, channel, approval)
	if startingCSV != "" {
		s += "  startingCSV: " + startingCSV + "\n"
	}
	return s
}

func (f *hubFleet) write(t *testing.T, name, content string) {
	t.Helper()
	path := filepath.Join(f.Work, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// commitPush commits everything in the user's clone on top of the
// server's main and pushes it, as a user does after a merge on GitHub.
func (f *hubFleet) commitPush(t *testing.T, msg string) string {
	t.Helper()
	git(t, f.Git, "add", "--all")
	git(t, f.Git, "commit", "--quiet", "-m", msg)
	git(t, f.Git, "pull", "--quiet", "--rebase", "origin", "main")
	git(t, f.Git, "push", "--quiet", "origin", "HEAD:main")
	return f.head(t)
}

// head is main's head on the server.
func (f *hubFleet) head(t *testing.T) string {
	t.Helper()
	h, err := f.Heads(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	return h["main"]
}

// plan runs olmops plan --push for the fleet's cluster, as a CI job would.
func (f *hubFleet) plan(t *testing.T) string {
	t.Helper()
	return runOlmops(t, f.Git, "plan", "--repo", f.URL, "--push", "--cluster", f.cluster,
		"--cache-dir", filepath.Join(f.cache, "plan"), "--image-cache", filepath.Join(f.cache, "images"))
}

// openPR returns pull request n, failing unless it is open with head.
func (f *hubFleet) openPR(t *testing.T, n int, head string) githubtest.PR {
	t.Helper()
	pr, ok := f.gh.PR(n)
	if !ok {
		t.Fatalf("no pull request #%d on GitHub (want one from %s)", n, head)
	}
	if pr.State != "open" || pr.Head != head {
		t.Fatalf("pull request #%d is %s from %s, want open from %s", n, pr.State, pr.Head, head)
	}
	return pr
}

// carrier is the commit on main that last changed the plan of ns/sub:
// the one its statuses go on.
func (f *hubFleet) carrier(t *testing.T, ns, sub string) string {
	t.Helper()
	git(t, f.Git, "fetch", "--quiet", "origin")
	return strings.TrimSpace(git(t, f.Git, "log", "-1", "--first-parent", "--format=%H", "origin/main", "--",
		"clusters/"+f.cluster+"/plans/"+ns+"/"+sub))
}

// status is the latest status named name on commit, and whether any.
func (f *hubFleet) status(commit, name string) (githubtest.Status, bool) {
	sts := f.gh.StatusesFor(commit)
	for _, s := range slices.Backward(sts) {
		if s.Context == name {
			return s, true
		}
	}
	return githubtest.Status{}, false
}

// waitStatus waits until the latest status named name on commit is state
// with desc.
func (f *hubFleet) waitStatus(t *testing.T, commit, name, state, desc string) {
	t.Helper()
	err := harness.Poll(t.Context(), fmt.Sprintf("%s %s %q on %.12s", name, state, desc, commit), time.Minute,
		func(ctx context.Context) (bool, string, error) {
			s, _ := f.status(commit, name)
			return s.State == state && s.Description == desc, fmt.Sprintf("%+v", s), nil
		})
	if err != nil {
		t.Fatal(err)
	}
}

// descriptions lists every status named name posted on commit, oldest
// first, as "state: description".
func (f *hubFleet) descriptions(commit, name string) []string {
	var out []string
	for _, s := range f.gh.StatusesFor(commit) {
		if s.Context == name {
			out = append(out, s.State+": "+s.Description)
		}
	}
	return out
}

// serve runs olmops serve against the shared control plane for the
// fleet's cluster until the test ends, its Repository deleted first.
func (f *hubFleet) serve(t *testing.T) {
	t.Helper()
	addrs, err := harness.FreeAddrs(harness.ServeAddrs)
	if err != nil {
		t.Fatal(err)
	}
	s, err := harness.StartServe(t.Context(), olmops, cluster, "e2e-webhook-secret", addrs)
	if err != nil {
		t.Fatal(err)
	}
	cluster.Serve = s
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Log(s.Tail(40))
		}
	})
	if err := s.WaitReady(t.Context()); err != nil {
		t.Fatalf("%v\n%s", err, s.Tail(20))
	}
	token := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: harness.Namespace, Name: ghTokenSecret},
		StringData: map[string]string{"token": ghToken}}
	if err := cluster.Client.Delete(t.Context(), token); client.IgnoreNotFound(err) != nil {
		t.Fatal(err)
	}
	err = cluster.CreateRepository(t.Context(), f.URL, v1alpha1.RepositorySpec{Cluster: f.cluster}, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		// Cleanups run last first: this one while serve still runs.
		if err := cluster.DeleteRepository(context.WithoutCancel(t.Context()), 30*time.Second); err != nil {
			t.Error(err)
		}
	})
}

// push tells the controller of main's new head through its webhook.
func (f *hubFleet) push(t *testing.T) {
	t.Helper()
	if _, err := cluster.Serve.PostPush(t.Context(), f.URL, f.head(t)); err != nil {
		t.Fatal(err)
	}
}

var operatorConditionGVK = schema.GroupVersionKind{Group: "operators.coreos.com", Version: "v2", Kind: "OperatorCondition"}

// setUpgradeable writes the Upgradeable condition into the operator's
// OperatorCondition, as the operator itself does (spec.conditions).
func setUpgradeable(t *testing.T, ns, csv, status, msg string) {
	t.Helper()
	oc := &unstructured.Unstructured{}
	oc.SetGroupVersionKind(operatorConditionGVK)
	if err := cluster.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: csv}, oc); err != nil {
		t.Fatal(err)
	}
	cond := map[string]any{"type": "Upgradeable", "status": status, "reason": "E2E", "message": msg,
		"lastTransitionTime": time.Now().UTC().Format(time.RFC3339)}
	if err := unstructured.SetNestedSlice(oc.Object, []any{cond}, "spec", "conditions"); err != nil {
		t.Fatal(err)
	}
	if err := cluster.Client.Update(t.Context(), oc); err != nil {
		t.Fatal(err)
	}
}

// operatorhub is the catalog of examples/catalogs/operatorhub, each file
// passed through edit, as a catalog image's /configs holds it.
func operatorhub(t *testing.T, edit func(t *testing.T, name, content string) string) fstest.MapFS {
	t.Helper()
	dir := filepath.Join("..", "..", "examples", "catalogs", "operatorhub")
	out := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS(dir), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(filepath.Join(dir, p))
		out[p] = &fstest.MapFile{Data: []byte(edit(t, p, string(data)))}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// oneStepChain drops etcd's skipRanges, so that OLM classic walks the
// stable channel 0.9.0 → 0.9.2 → 0.9.4 one replaces at a time: a plan
// of two hops.
func oneStepChain(t *testing.T, name, content string) string {
	if name != "etcd/catalog.yaml" {
		return content
	}
	out := strings.ReplaceAll(content, "    skipRange: '>=0.9.0 <0.9.4'\n", "")
	if out == content {
		t.Fatal("examples' etcd catalog has no skipRange any more: the e2e fixtures need a new way to make a two-hop path")
	}
	return out
}

// writeCatalog writes the catalog fsys into the fleet's catalogs/name.
func (f *hubFleet) writeCatalog(t *testing.T, name string, fsys fstest.MapFS) {
	t.Helper()
	for p, file := range fsys {
		f.write(t, filepath.Join("catalogs", name, p), string(file.Data))
	}
}
