//go:build !olmops_cli

package main

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/internal/gittest"
	"github.com/olmops/olmops/internal/kubetest"
)

// diff of staging against the live cluster: objects to create before the
// first apply, none after it, and an edit made in the cluster after that.
func TestDiff(t *testing.T) {
	env := kube.Env(t)
	dir := plannedExamples(t)
	kc := envKubeconfig(t)
	t.Cleanup(kubetest.Rollout(t.Context(), env.Client, "", 20*time.Millisecond))
	installers(t)
	diff := func(t *testing.T, want int) string {
		t.Helper()
		out, errOut, code := runCLI(t, "diff", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc)
		if code != want {
			t.Fatalf("diff: exit %d, want %d\n%s%s", code, want, out, errOut)
		}
		return out
	}
	changed := regexp.MustCompile(`(?m)^► \S+ changed$`)

	t.Run("before apply", func(t *testing.T) {
		// The control plane is shared: another test may have applied
		// staging already.
		gone := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "etcd-system", Name: "etcd-operator"}}
		if err := env.Client.Delete(t.Context(), gone); client.IgnoreNotFound(err) != nil {
			t.Fatal(err)
		}
		out := diff(t, exitFindings)
		if !strings.Contains(out, "► Deployment/etcd-system/etcd-operator created\n") {
			t.Errorf("the Deployment is not created:\n%s", out)
		}
		if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: "etcd-system", Name: "etcd-operator"}, &appsv1.Deployment{}); err == nil {
			t.Error("diff created the Deployment")
		}
	})

	t.Run("after apply", func(t *testing.T) {
		if out, errOut, code := runCLI(t, "apply", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc); code != exitOK {
			t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
		}
		if out := diff(t, exitOK); out != "" {
			t.Errorf("changes after apply:\n%s", out)
		}
	})

	t.Run("drift", func(t *testing.T) {
		d := &appsv1.Deployment{}
		key := client.ObjectKey{Namespace: "etcd-system", Name: "etcd-operator"}
		if err := env.Client.Get(t.Context(), key, d); err != nil {
			t.Fatal(err)
		}
		want := d.Spec.Template.Spec.Containers[0].Image
		d.Spec.Template.Spec.Containers[0].Image = "drifted.example.com/etcd:edited"
		if err := env.Client.Update(t.Context(), d, client.FieldOwner("kubectl-edit")); err != nil {
			t.Fatal(err)
		}
		out := diff(t, exitFindings)
		if got := changed.FindAllString(out, -1); len(got) != 1 || got[0] != "► Deployment/etcd-system/etcd-operator changed" {
			t.Errorf("changed objects %q, want the Deployment alone:\n%s", got, out)
		}
		for _, line := range []string{"-        image: drifted.example.com/etcd:edited\n", "+        image: " + want + "\n"} {
			if !strings.Contains(out, line) {
				t.Errorf("diff lacks %q:\n%s", line, out)
			}
		}
		// Fields the server owns (managedFields, generation) are no change.
		for _, line := range strings.Split(out, "\n") {
			edit := strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")
			header := strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "+++ ")
			if edit && !header && !strings.Contains(line, "image: ") {
				t.Errorf("changed line %q is not the image", line)
			}
		}
		if err := env.Client.Get(t.Context(), key, d); err != nil || d.Spec.Template.Spec.Containers[0].Image != "drifted.example.com/etcd:edited" {
			t.Errorf("diff undid the edit: %v", err)
		}
	})

	t.Run("a plan edited by hand is refused", func(t *testing.T) {
		manifests, err := filepath.Glob(filepath.Join(dir, stagingPlan, "manifests", "*.yaml"))
		if err != nil || len(manifests) == 0 {
			t.Fatalf("no manifests: %v", err)
		}
		if err := os.WriteFile(manifests[0], []byte("# edited\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		gittest.Git(t, dir, "commit", "--quiet", "-am", "edit a manifest")
		_, errOut, code := runCLI(t, "diff", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc)
		if code != exitError || !strings.Contains(errOut, "etcd-system/etcd: "+stagingPlan+"/installplan.yaml") {
			t.Errorf("exit %d, want %d naming the plan:\n%s", code, exitError, errOut)
		}
	})
}

func TestMaskSecret(t *testing.T) {
	secret := func(data map[string]any) *unstructured.Unstructured {
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Secret", "data": data}}
	}
	live, applied := maskSecret(
		secret(map[string]any{"same": "c2VjcmV0", "edited": "b2xk", "gone": "eA=="}),
		secret(map[string]any{"same": "c2VjcmV0", "edited": "bmV3", "new": "eQ=="}))
	wantLive := map[string]any{"same": "***", "edited": "*** (before)", "gone": "*** (before)"}
	wantApplied := map[string]any{"same": "***", "edited": "*** (after)", "new": "*** (after)"}
	if !equalData(live, wantLive) || !equalData(applied, wantApplied) {
		t.Errorf("masked:\nlive    %v\napplied %v", live.Object["data"], applied.Object["data"])
	}
	cm := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "data": map[string]any{"k": "v"}}}
	if got, _ := maskSecret(cm, cm); got.Object["data"].(map[string]any)["k"] != "v" {
		t.Error("a ConfigMap was masked")
	}
}

func equalData(u *unstructured.Unstructured, want map[string]any) bool {
	got, _ := u.Object["data"].(map[string]any)
	if len(got) != len(want) {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}

// diff shows what apply would prune: a subscription whose plan left the
// branch has its objects listed as deleted (CRDs kept), counted in the exit
// code, and nothing is deleted.
func TestDiffShowsPrunes(t *testing.T) {
	env := kube.Env(t)
	dir := plannedExamples(t)
	kc := envKubeconfig(t)
	t.Cleanup(kubetest.Rollout(t.Context(), env.Client, "", 20*time.Millisecond))
	installers(t)
	ns := env.NewNamespace(t)
	repo := newRepository(t, ns, "staging", v1alpha1.RepositorySpec{URL: "https://git.example.com/fleet.git", Cluster: "staging", Suspend: true})
	record := "--repository=" + ns + "/" + repo.Name
	if out, errOut, code := runCLI(t, "apply", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc, record); code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	gittest.Git(t, dir, "rm", "-r", "--quiet", stagingPlan)
	gittest.Git(t, dir, "commit", "--quiet", "-m", "etcd leaves staging")

	deleted := regexp.MustCompile(`(?m)^► (\S+) deleted$`)
	for _, tt := range []struct {
		name  string
		flags []string
		code  int
		want  bool
	}{
		{"pruned", nil, exitFindings, true},
		{"--prune=false", []string{"--prune=false"}, exitOK, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"diff", "--repo", dir, "--cluster", "staging", "--kubeconfig", kc, record}, tt.flags...)
			out, errOut, code := runCLI(t, args...)
			if code != tt.code {
				t.Fatalf("diff: exit %d, want %d\n%s%s", code, tt.code, out, errOut)
			}
			var got []string
			for _, m := range deleted.FindAllStringSubmatch(out, -1) {
				got = append(got, m[1])
			}
			if has := slices.Contains(got, "Deployment/etcd-system/etcd-operator"); has != tt.want {
				t.Errorf("deleted %q: the Deployment listed %v, want %v\n%s", got, has, tt.want, errOut)
			}
			for _, g := range got {
				if strings.HasPrefix(g, "CustomResourceDefinition/") || strings.HasPrefix(g, "Namespace/") {
					t.Errorf("%s listed as deleted; apply keeps it", g)
				}
			}
		})
	}
	if err := env.Client.Get(t.Context(), client.ObjectKey{Namespace: "etcd-system", Name: "etcd-operator"}, &appsv1.Deployment{}); err != nil {
		t.Errorf("the Deployment after diff: %v", err)
	}
}
