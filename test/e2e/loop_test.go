package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

const (
	etcdNamespace = "etcd-system"
	etcdBranch    = "olmops/prod-east/etcd-system/etcd"
)

// prod-east approves by merge: plan proposes etcd on a branch, with
// acme-db's Automatic plan riding along because acme-db needs etcd's API;
// olmops apply installs nothing of the proposal; once it is merged, apply
// installs both; a Deployment edited by hand is put back by the next
// apply; a proposal whose branch is deleted is rejected, and the next plan
// does not propose it again.
func TestApplyDriftAndRejection(t *testing.T) {
	g := fleet(t)
	cache := t.TempDir()
	plan := func() {
		t.Helper()
		runOlmops(t, g, "plan", "--repo", g.URL, "--push", "--cluster", "prod-east",
			"--cache-dir", filepath.Join(cache, "plan"), "--image-cache", filepath.Join(cache, "images"))
	}
	apply := func() string {
		t.Helper()
		return runOlmops(t, g, "apply", "--repo", g.URL, "--cluster", "prod-east", "--kubeconfig", cluster.Kubeconfig,
			"--cache-dir", filepath.Join(cache, "apply"), "--health-timeout", "1m")
	}
	heads := func() map[string]string {
		t.Helper()
		h, err := g.Heads(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		return h
	}

	plan()
	if heads()[etcdBranch] == "" {
		t.Fatalf("no proposal branch %s: %v", etcdBranch, heads())
	}

	apply()
	for _, name := range []string{"etcd-operator", "acme-db-operator"} {
		err := cluster.Client.Get(t.Context(), client.ObjectKey{Namespace: etcdNamespace, Name: name}, &appsv1.Deployment{})
		if !apierrors.IsNotFound(err) {
			t.Fatalf("%s exists before its proposal was merged (%v)", name, err)
		}
	}

	// Merge = approve, with git: both plans land together.
	git(t, g, "fetch", "--quiet", "origin")
	git(t, g, "merge", "--quiet", "--no-edit", "origin/"+etcdBranch)
	git(t, g, "push", "--quiet", "origin", "main")
	out := apply()
	if !strings.Contains(out, "acme-db") || !strings.Contains(out, "Installed") {
		t.Fatalf("apply did not install acme-db:\n%s", out)
	}

	t.Run("drift is put back", func(t *testing.T) {
		var list appsv1.DeploymentList
		if err := cluster.Client.List(t.Context(), &list, client.InNamespace(etcdNamespace)); err != nil || len(list.Items) == 0 {
			t.Fatalf("no Deployment in %s: %v", etcdNamespace, err)
		}
		d := &list.Items[0]
		want := *d.Spec.Replicas
		d.Spec.Replicas = new(want + 2)
		if err := cluster.Client.Update(t.Context(), d, client.FieldOwner("kubectl-edit")); err != nil {
			t.Fatal(err)
		}
		apply()
		if err := cluster.Client.Get(t.Context(), client.ObjectKeyFromObject(d), d); err != nil {
			t.Fatal(err)
		}
		if *d.Spec.Replicas != want {
			t.Errorf("%s has %d replicas after apply, want %d", d.Name, *d.Spec.Replicas, want)
		}
	})

	t.Run("a rejected proposal stays rejected", func(t *testing.T) {
		plan() // proposes etcd's next upgrade on the branch
		if heads()[etcdBranch] == "" {
			t.Fatalf("no upgrade proposed on %s after the merge", etcdBranch)
		}
		git(t, g, "push", "--quiet", "origin", "--delete", etcdBranch)
		plan()
		if sha := heads()[etcdBranch]; sha != "" {
			t.Errorf("plan proposed etcd again on %s (%s) after its branch was deleted", etcdBranch, sha)
		}
	})
}
