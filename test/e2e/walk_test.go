package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/test/harness"
)

// The walk's cluster, and the namespaces of its two subscriptions: etcd
// waits for approval, memcached is Automatic and is removed at the end.
const (
	walkCluster = "walk"
	walkEtcdNS  = "walk-etcd"
	walkCacheNS = "walk-cache"
)

// What a user does, from a catalog image to an operator pruned, with the
// olmops binary, git, the GitHub fake, an OCI registry and a control
// plane: the import is proposed and merged; plan proposes etcd (Manual)
// and commits memcached (Automatic); the controller applies memcached at
// once and etcd when its pull request is merged, and reports on the
// commit; the operator's Upgradeable=False fails the next pull request and
// holds it once merged; clearing it lets both hops through; memcached's
// subscription removed from Git is pruned from the cluster.
func TestUserWalk(t *testing.T) {
	f := newHubFleet(t, walkCluster, "Manual", []string{"internal"}, map[string]string{
		"catalogs/internal/":                    "",
		"clusters/walk/subscriptions/etcd.yaml": subscription(walkEtcdNS, "etcd", "etcd", "stable", "Manual", "etcdoperator.v0.9.0"),
		"clusters/walk/subscriptions/memcached.yaml": subscription(walkCacheNS, "memcached", "memcached-operator", "alpha",
			"Automatic", ""),
	})
	ctxEtcd := commitstatus.Context(walkCluster, walkEtcdNS, "etcd")
	etcdBranch := "olmops/" + walkCluster + "/" + walkEtcdNS + "/etcd"

	// A new catalog image is imported as a pull request; its merge is
	// what the planner then reads.
	reg := ocitest.NewRegistry(t)
	image := reg.Ref("catalogs/operatorhub:v1")
	reg.Push(t, image, ocitest.CatalogImage(t, operatorhub(t, oneStepChain)))
	out := runOlmops(t, f.Git, "catalog", "import", image, "--into", "catalogs/operatorhub", "--push", "--repo", f.URL,
		"--git-cache-dir", filepath.Join(f.cache, "import"), "--cache-dir", filepath.Join(f.cache, "images"))
	pr := f.openPR(t, 1, "olmops/import/operatorhub")
	if !strings.Contains(pr.Title, "etcd") || !strings.Contains(out, "bundles: 5 new, 0 removed") {
		t.Errorf("the import's pull request does not name etcd: %q\n%s", pr.Title, out)
	}
	f.gh.Merge(t, 1)

	f.plan(t)
	f.openPR(t, 2, etcdBranch)
	f.serve(t)
	if err := cluster.WaitSubscription(t.Context(), walkCacheNS, "memcached", time.Minute, harness.Installed); err != nil {
		t.Fatal(err)
	}
	if st, err := cluster.Subscription(t.Context(), walkEtcdNS, "etcd"); err != nil || st.Phase != "" {
		t.Fatalf("etcd is applied before its pull request was merged: %+v (%v)", st, err)
	}
	f.waitStatus(t, f.carrier(t, walkCacheNS, "memcached"), commitstatus.Context(walkCluster, walkCacheNS, "memcached"),
		"success", "memcached-operator.v0.0.1 installed · healthy")

	t.Run("merge is approval", func(t *testing.T) {
		f.gh.Merge(t, 2)
		f.push(t)
		carrier := f.carrier(t, walkEtcdNS, "etcd")
		f.waitStatus(t, carrier, ctxEtcd, "success", "etcdoperator.v0.9.0 installed · healthy")
		if img := etcdImage(t, walkEtcdNS); !strings.HasSuffix(img, ":v0.9.0") {
			t.Errorf("etcd-operator runs %s, want v0.9.0", img)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("Upgradeable=False fails the proposal and holds the merge", func(t *testing.T) {
		const why = "backup in progress"
		setUpgradeable(t, walkEtcdNS, "etcdoperator.v0.9.0", "False", why)
		installed := f.carrier(t, walkEtcdNS, "etcd")
		f.push(t) // no new commit: the controller only looks again
		f.waitStatus(t, installed, ctxEtcd, "success", "etcdoperator.v0.9.0 installed · healthy · Upgradeable=False: "+why)

		f.plan(t)
		pr := f.openPR(t, 3, etcdBranch)
		if s, _ := f.status(pr.HeadSHA, commitstatus.UpgradeableContext); s.State != "failure" || !strings.Contains(s.Description, why) {
			t.Errorf("%s on the upgrade's pull request = %+v, want failure saying %q", commitstatus.UpgradeableContext, s, why)
		}

		f.gh.Merge(t, 3) // merged anyway: the cluster still says no
		f.push(t)
		carrier := f.carrier(t, walkEtcdNS, "etcd")
		f.waitStatus(t, carrier, ctxEtcd, "pending", "held at etcdoperator.v0.9.0 · Upgradeable=False: "+why)
		if err := cluster.WaitSubscription(t.Context(), walkEtcdNS, "etcd", time.Minute, func(st v1alpha1.SubscriptionStatus) bool {
			return st.Phase == v1alpha1.SubscriptionHeld
		}); err != nil {
			t.Error(err)
		}
		if img := etcdImage(t, walkEtcdNS); !strings.HasSuffix(img, ":v0.9.0") {
			t.Errorf("etcd-operator runs %s while its upgrade is held, want v0.9.0", img)
		}

		setUpgradeable(t, walkEtcdNS, "etcdoperator.v0.9.0", "True", "")
		f.waitStatus(t, carrier, ctxEtcd, "success", "etcdoperator.v0.9.4 installed · healthy")
		got := f.descriptions(carrier, ctxEtcd)
		hops := []string{"pending: applying etcdoperator.v0.9.2 (hop 1/2)", "pending: applying etcdoperator.v0.9.4 (hop 2/2)"}
		if i := slices.Index(got, hops[0]); i < 0 || !slices.Contains(got[i:], hops[1]) {
			t.Errorf("the statuses on the upgrade's commit do not show it hop by hop (%q):\n  %s", hops, strings.Join(got, "\n  "))
		}
		if img := etcdImage(t, walkEtcdNS); !strings.HasSuffix(img, ":v0.9.4") {
			t.Errorf("etcd-operator runs %s, want v0.9.4", img)
		}
	})
	if t.Failed() {
		return
	}

	t.Run("a subscription removed from Git is pruned", func(t *testing.T) {
		if n := len(deployments(t, walkCacheNS)); n == 0 {
			t.Fatalf("no Deployment in %s to prune", walkCacheNS)
		}
		git(t, f.Git, "pull", "--quiet", "--ff-only", "origin", "main")
		git(t, f.Git, "rm", "--quiet", "clusters/walk/subscriptions/memcached.yaml")
		f.commitPush(t, "memcached is no longer wanted")
		f.plan(t)
		f.push(t)
		err := harness.Poll(t.Context(), "memcached pruned", time.Minute, func(ctx context.Context) (bool, string, error) {
			d := deployments(t, walkCacheNS)
			st, err := cluster.Subscription(ctx, walkCacheNS, "memcached")
			return len(d) == 0 && st.Phase == "", fmt.Sprintf("Deployments %v, status %+v", d, st), err
		})
		if err != nil {
			t.Fatal(err)
		}
		if st, err := cluster.Subscription(t.Context(), walkEtcdNS, "etcd"); err != nil || !harness.Installed(st) {
			t.Errorf("etcd after memcached's removal: %+v (%v)", st, err)
		}
		if err := waitReady(t); err != nil {
			t.Error(err)
		}
	})
}

// etcdImage is the image etcd-operator's Deployment in ns runs.
func etcdImage(t *testing.T, ns string) string {
	t.Helper()
	var d appsv1.Deployment
	if err := cluster.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-operator"}, &d); err != nil {
		t.Fatal(err)
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

// deployments names the Deployments of ns.
func deployments(t *testing.T, ns string) []string {
	t.Helper()
	var list appsv1.DeploymentList
	if err := cluster.Client.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range list.Items {
		out = append(out, d.Name)
	}
	return out
}

// waitReady waits until the Repository says Ready=True: every plan
// applied, healthy, and nothing left to prune.
func waitReady(t *testing.T) error {
	return harness.Poll(t.Context(), "Ready=True", time.Minute, func(ctx context.Context) (bool, string, error) {
		repo, err := cluster.Repository(ctx)
		if err != nil {
			return false, "", err
		}
		c := meta.FindStatusCondition(repo.Status.Conditions, v1alpha1.ReadyCondition)
		if c == nil {
			return false, "no Ready condition", nil
		}
		return c.Status == metav1.ConditionTrue, fmt.Sprintf("%s %s: %s", c.Status, c.Reason, c.Message), nil
	})
}
