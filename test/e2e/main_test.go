package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/go-logr/logr"
	"sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/olmops/olmops/test/harness"
)

// The binary under test and the one control plane the package shares,
// standing for cluster prod-east of examples/.
var (
	olmops  string
	cluster *harness.Cluster
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

// run builds olmops and starts the control plane; without
// KUBEBUILDER_ASSETS it fails, as kubetest does: these tests are meant to
// run through make test.
func run(m *testing.M) int {
	// envtest logs through controller-runtime, which complains with a
	// stack trace when no logger is set; its errors are returned anyway.
	log.SetLogger(logr.Discard())
	tmp, err := os.MkdirTemp("", "olmops-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	olmops = filepath.Join(tmp, "olmops")
	build := exec.Command("go", "build", "-o", olmops, "./cmd/olmops")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "e2e: build olmops: %v\n%s", err, out)
		return 1
	}
	paths, err := harness.Find(olmops, filepath.Join("..", ".."))
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	clusters, err := harness.StartClusters(paths.Assets, paths.CRDs, tmp, "prod-east")
	if err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
		return 1
	}
	cluster = clusters[0]
	stop := cluster.StartKubelet(context.Background())
	code := m.Run()
	stop()
	if err := cluster.Stop(); err != nil {
		fmt.Fprintln(os.Stderr, "e2e:", err)
	}
	return code
}

// fleet serves examples/ from a new git server, as a user pushes it.
func fleet(t *testing.T) *harness.Git {
	t.Helper()
	g, err := harness.StartGit(t.Context(), filepath.Join(t.TempDir(), "fleet"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Close)
	if err := os.CopyFS(g.Work, os.DirFS(filepath.Join("..", "..", "examples"))); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"add", "--all"}, {"commit", "--quiet", "-m", "desired state"}, {"push", "--quiet", "origin", "main"}} {
		git(t, g, args...)
	}
	return g
}

func git(t *testing.T, g *harness.Git, args ...string) string {
	t.Helper()
	out, err := g.InWork(t.Context(), args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// runOlmops runs olmops in the user's clone and fails the test when it fails.
func runOlmops(t *testing.T, g *harness.Git, args ...string) string {
	t.Helper()
	out, err := g.Olmops(t.Context(), olmops, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	return out
}
