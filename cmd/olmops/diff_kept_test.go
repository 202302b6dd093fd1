//go:build !olmops_cli

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
	"github.com/olmops/olmops/test/harness"
)

// installers creates the examples' installer service accounts in the
// shared control plane, so that staging's ClusterExtension is applied
// rather than held for want of its account, whichever test runs first.
func installers(t *testing.T) {
	t.Helper()
	if err := harness.CreateInstallers(t.Context(), kube.Env(t).Client, filepath.Join(examplesDir, "installers")); err != nil {
		t.Fatal(err)
	}
}

// A plan that stays on the branch but whose target no longer holds an
// object (here a ConfigMap its overlay added, then dropped) shows that
// object as deleted, counted in the exit code, as apply would prune it;
// the rest of the plan, unchanged, shows nothing.
func TestDiffKeptPlanDropsObject(t *testing.T) {
	env := kube.Env(t)
	dir := exampleRepo(t)
	kc := envKubeconfig(t)
	t.Cleanup(kubetest.Rollout(t.Context(), env.Client, "", 20*time.Millisecond))
	installers(t)
	overlay := filepath.Join(dir, "clusters/staging/overlays/etcd")
	if err := os.MkdirAll(overlay, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"kustomization.yaml": "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources: [extra.yaml]\n",
		"extra.yaml":         "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: etcd-kept-extra\ndata:\n  k: v\n",
	} {
		if err := os.WriteFile(filepath.Join(overlay, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gittest.Git(t, dir, "add", "--all")
	gittest.Git(t, dir, "commit", "--quiet", "-m", "staging: an extra ConfigMap for etcd")
	plan := func() {
		t.Helper()
		if out, errOut, code := runCLI(t, "plan", "--repo", dir, "--cluster", "staging"); code != exitOK {
			t.Fatalf("plan: exit %d\n%s%s", code, out, errOut)
		}
	}
	plan()
	ns := env.NewNamespace(t)
	repo := newRepository(t, ns, "staging", v1alpha1.RepositorySpec{URL: "https://git.example.com/fleet.git", Cluster: "staging", Suspend: true})
	record := "--repository=" + ns + "/" + repo.Name
	if out, errOut, code := runCLI(t, "apply", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc, record); code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	key := client.ObjectKey{Namespace: "etcd-system", Name: "etcd-kept-extra"}
	if err := env.Client.Get(t.Context(), key, &corev1.ConfigMap{}); err != nil {
		t.Fatalf("the overlay's ConfigMap was not applied: %v", err)
	}

	gittest.Git(t, dir, "rm", "-r", "--quiet", "clusters/staging/overlays/etcd")
	gittest.Git(t, dir, "commit", "--quiet", "-m", "staging: etcd without the extra ConfigMap")
	plan()
	if _, err := os.Stat(filepath.Join(dir, stagingPlan, v1alpha1.InstallPlanFile)); err != nil {
		t.Fatalf("the plan left the branch: %v", err)
	}
	line := regexp.MustCompile(`(?m)^► .*$`)
	for _, tt := range []struct {
		name  string
		flags []string
		code  int
		want  []string
	}{
		{"pruned", nil, exitFindings, []string{"► ConfigMap/etcd-system/etcd-kept-extra deleted"}},
		{"--prune=false", []string{"--prune=false"}, exitOK, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"diff", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc, record}, tt.flags...)
			out, errOut, code := runCLI(t, args...)
			if code != tt.code {
				t.Errorf("diff: exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			if got := line.FindAllString(out, -1); strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("changes %q, want %q\n%s", got, tt.want, out)
			}
		})
	}
	if err := env.Client.Get(t.Context(), key, &corev1.ConfigMap{}); err != nil {
		t.Errorf("diff deleted the ConfigMap: %v", err)
	}
}
