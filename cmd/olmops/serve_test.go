//go:build !olmops_cli

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

// Flags that cannot work stop serve before it starts anything.
func TestServeUsage(t *testing.T) {
	kc := writeKubeconfig(t, &clientcmdapi.Cluster{Server: "https://127.0.0.1:1"}, &clientcmdapi.AuthInfo{Token: "t"})
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad log format", []string{"--log-format", "xml"}, `invalid --log-format "xml"`},
		{"bad label selector", []string{"--watch-label-selector", "key in (a"}, "--watch-label-selector"},
		{"bad fetch size", []string{"--max-fetch-size", "lots"}, "--max-fetch-size"},
		{"negative fetch size", []string{"--max-fetch-size", "-1Mi"}, "cannot be negative"},
		{"missing kubeconfig", []string{"--kubeconfig", filepath.Join(t.TempDir(), "nope")}, "kubeconfig"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"serve", "--kubeconfig", kc, "--cache-dir", t.TempDir(), "--webhook-bind-address", "0"}, tt.args...)
			out, errOut, code := runCLI(t, args...)
			if code != exitError || !strings.Contains(errOut, "olmops: ") || !strings.Contains(errOut, tt.want) {
				t.Errorf("exit %d, want %d with %q\n%s%s", code, exitError, tt.want, out, errOut)
			}
		})
	}
}

// serveStarted is set by the first TestServe of the process:
// controller-runtime refuses a second controller named "repository" in a
// process, and serve sets one up.
var serveStarted atomic.Bool

// olmops serve, as a Deployment runs it but with the webhook's Secret not
// yet created: it starts, answers its probes, reconciles a Repository from
// the git server, exports its metrics, and exits 0 when its context ends.
func TestServe(t *testing.T) {
	if serveStarted.Swap(true) {
		t.Skip("olmops serve sets up its controller once per process (controller-runtime's name check): run with -count=1")
	}
	env := kube.Env(t)
	kc := envKubeconfig(t)
	// The examples' plans install as their service accounts: created here,
	// as a user would, not left to whichever test ran before.
	installers(t)
	dir := plannedExamples(t)
	srv := gittest.NewServer(t, gittest.ServerOptions{})
	srv.CreateRepo(t, "fleet")
	gittest.Git(t, dir, "push", "--quiet", srv.RepoDir("fleet"), "main")
	ns := env.NewNamespace(t)
	repo := newRepository(t, ns, "staging", v1alpha1.RepositorySpec{URL: srv.RepoURL("fleet"), Cluster: "staging",
		Interval: metav1.Duration{Duration: time.Hour}, HealthTimeout: metav1.Duration{Duration: 30 * time.Second}})

	metrics, probes, hook := freeAddr(t), freeAddr(t), freeAddr(t)
	cacheDir, secret := t.TempDir(), filepath.Join(t.TempDir(), "missing")
	logs := &lockedBuffer{}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- execute(ctx, []string{"serve", "--kubeconfig", kc, "--log-format", "text",
			"--metrics-bind-address", metrics, "--health-probe-bind-address", probes, "--webhook-bind-address", hook,
			"--webhook-secret-file", secret,
			"--watch-namespace", ns, "--cache-dir", cacheDir, "--health-poll", "20ms"}, streams{Out: logs, Err: logs})
	}()

	until(t, done, logs, "/readyz answers 200", func() (bool, string) {
		code, body := get(t, probes, "/readyz")
		return code == http.StatusOK, fmt.Sprintf("%d %s", code, body)
	})
	if code, body := get(t, probes, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d %s", code, body)
	}
	// Only now: serve sets klog's logger as it starts, which races with
	// a client already running in the process.
	t.Cleanup(kubetest.Rollout(t.Context(), env.Client, "", 20*time.Millisecond))
	until(t, done, logs, "the Repository ready", func() (bool, string) {
		got := &v1alpha1.Repository{}
		if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(repo), got); err != nil {
			return false, err.Error()
		}
		c := meta.FindStatusCondition(got.Status.Conditions, v1alpha1.ReadyCondition)
		return c != nil && c.Status == metav1.ConditionTrue, fmt.Sprintf("%+v", got.Status)
	})
	code, body := get(t, metrics, "/metrics")
	if code != http.StatusOK {
		t.Fatalf("/metrics: %d", code)
	}
	info := fmt.Sprintf(`installed=%q`, stagingBundle)
	if !hasSeries(body, "olmops_subscription_info{", `repository="`+ns+`/staging"`, `phase="installed"`, info) ||
		!hasSeries(body, "olmops_apply_duration_seconds_count{", `cluster="staging"`, `phase="installed"`) ||
		!hasSeries(body, "olmops_plans_applied_total{", `cluster="staging"`, `phase="installed"`) {
		t.Errorf("/metrics lacks the pass's series:\n%s", grepLines(body, "olmops_"))
	}
	if !strings.Contains(logs.String(), "push webhook off: no secret") {
		t.Errorf("serve did not say the webhook is off:\n%s", logs)
	}

	cancel()
	select {
	case code := <-done:
		if code != exitOK {
			t.Errorf("serve exited %d after its context ended\n%s", code, logs)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("serve still runs 30s after its context ended\n%s", logs)
	}
}

// freeAddr is a 127.0.0.1 address no one listened on a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// get returns the status and body of http://addr+path; 0 when nothing
// answers yet.
func get(t *testing.T, addr, path string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

// until polls cond for 60 s, failing early when serve exits.
func until(t *testing.T, done <-chan int, logs fmt.Stringer, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		ok, saw := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: gave up after 60s; last saw %s\nlogs:\n%s", what, saw, logs)
		}
		select {
		case code := <-done:
			t.Fatalf("%s: serve exited %d\n%s", what, code, logs)
		case <-tick.C:
		}
	}
}

// hasSeries says whether one line of a Prometheus exposition starts
// with prefix and holds every label.
func hasSeries(body, prefix string, labels ...string) bool {
	for line := range strings.Lines(body) {
		if !strings.HasPrefix(line, prefix) {
			continue
		}
		all := true
		for _, l := range labels {
			all = all && strings.Contains(line, l)
		}
		if all {
			return true
		}
	}
	return false
}

func grepLines(body, sub string) string {
	var b strings.Builder
	for line := range strings.Lines(body) {
		if strings.Contains(line, sub) {
			b.WriteString(line)
		}
	}
	return b.String()
}

// lockedBuffer is a buffer the manager's goroutines write logs to while
// the test reads them.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestMaxFetchSizeFlag(t *testing.T) {
	if got := newServeCmd(streams{}).Flags().Lookup("max-fetch-size").DefValue; got != "512Mi" {
		t.Errorf("--max-fetch-size defaults to %s, want 512Mi", got)
	}
	tests := []struct {
		in   string
		want int64
	}{
		{"64Ki", 64 << 10},
		{"2Gi", 2 << 30},
		{"1M", 1_000_000},
		{"0", 0},
	}
	for _, tt := range tests {
		var n int64 = -1
		if err := (byteSizeFlag{&n}).Set(tt.in); err != nil || n != tt.want {
			t.Errorf("--max-fetch-size %s = %d (%v), want %d", tt.in, n, err, tt.want)
		}
	}
}
