package reconciler

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

// serve50Runs numbers BenchmarkServe50's repositories.
var serve50Runs int

// BenchmarkServe50 runs the real olmops serve binary, cold, against a
// Repository of 50 subscriptions on OpenShift 4.20 (so it loads ocp-v4.20's
// community catalog to check olm.maxOpenShiftVersion) until all are
// installed and Ready, and reports the controller's peak resident memory.
// Target (issue #19): peak RSS ≤ 128 MiB; config/manager sets the
// Deployment's memory request and limit from this figure and
// BenchmarkPlanners10's.
func BenchmarkServe50(b *testing.B) {
	_, bare := benchRepo(b)
	serve50Runs++ // -count runs the benchmark again in the same git server
	name := fmt.Sprintf("serve50-%d", serve50Runs)
	gittest.Git(b, gitServer.Root, "clone", "--quiet", "--bare", bare, name+".git")
	bin := buildOlmops(b)
	for b.Loop() {
		env := kubetest.Start(b, kubetest.WithOperatorConditionCRD(), crdDirs, kubetest.WithScheme(v1alpha1.AddToScheme))
		cmd, probe := startServe(b, bin, env.Kubeconfig(b))
		key := createRepository(b, env, gitServer.RepoURL(name), "c000")
		stop := kubetest.Rollout(context.Background(), env.Client, "", 20*time.Millisecond)
		waitReady(b, env, key, probe)
		stop()
		b.StopTimer()
		stopServe(b, cmd, env)
		b.StartTimer()
	}
}

// buildOlmops builds the binary the image ships, once per benchmark: the
// full build (without the olmops_cli tag, which leaves serve out),
// stripped as the Makefile's controller build is, so the figure is the
// Deployment's.
func buildOlmops(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "olmops-controller")
	out, err := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", bin, "../cmd/olmops").CombinedOutput()
	if err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// startServe starts olmops serve and returns it and its probe address.
func startServe(b *testing.B, bin, kubeconfig string) (*exec.Cmd, string) {
	probe := closedAddr(b)
	cmd := exec.Command(bin, "serve", "--kubeconfig", kubeconfig, "--metrics-bind-address", "0",
		"--health-probe-bind-address", probe, "--webhook-bind-address", "0", "--cache-dir", b.TempDir(),
		"--health-poll", "20ms")
	cmd.Stderr = os.Stderr
	if testing.Verbose() {
		cmd.Stderr = nil
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd, probe
}

func createRepository(b *testing.B, env *kubetest.Env, url, cluster string) client.ObjectKey {
	ctx := b.Context()
	ns := env.NewNamespace(b)
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "git"},
		Data: map[string][]byte{"username": []byte("olmops"), "password": []byte(gitPassword)}}
	obj := &v1alpha1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: cluster}, Spec: v1alpha1.RepositorySpec{
		URL: url, Cluster: cluster, SecretRef: &v1alpha1.LocalObjectReference{Name: "git"}}}
	for _, o := range []client.Object{sec, obj} {
		if err := env.Client.Create(ctx, o); err != nil {
			b.Fatal(err)
		}
	}
	return client.ObjectKeyFromObject(obj)
}

// waitReady waits for the Repository to be Ready, checking the binary
// still answers its readiness probe.
func waitReady(b *testing.B, env *kubetest.Env, key client.ObjectKey, probe string) {
	deadline := time.Now().Add(6 * time.Minute)
	for time.Now().Before(deadline) {
		obj := &v1alpha1.Repository{}
		if err := env.Client.Get(b.Context(), key, obj); err != nil {
			b.Fatal(err)
		}
		if c := meta.FindStatusCondition(obj.Status.Conditions, v1alpha1.ReadyCondition); c != nil && c.Status == metav1.ConditionTrue {
			if len(obj.Status.Subscriptions) != 50 {
				b.Fatalf("Ready with %d subscriptions", len(obj.Status.Subscriptions))
			}
			if resp, err := http.Get("http://" + probe + "/readyz"); err != nil || resp.StatusCode != http.StatusOK {
				b.Fatalf("readyz: %v %v", resp, err)
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	b.Fatal("the Repository did not become Ready within 6 minutes")
}

// memory reads a process's peak and current resident set in MiB.
func memory(b *testing.B, pid int) (hwm, rss float64) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		kb, _ := strconv.ParseFloat(fields[0], 64)
		switch k {
		case "VmHWM":
			hwm = kb / 1024
		case "VmRSS":
			rss = kb / 1024
		}
	}
	return hwm, rss
}
