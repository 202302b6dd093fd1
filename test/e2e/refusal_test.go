package e2e

import (
	"encoding/base64"
	"path/filepath"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/commitstatus"
)

// A pull request closed without merging is a rejection: the next plan
// proposes nothing new, plan --check calls the plan rejected rather than
// stale, and nothing of it reaches the cluster.
func TestClosedProposalIsRejected(t *testing.T) {
	const cl, ns = "rejecting", "rejecting-etcd"
	files := map[string]string{
		"catalogs/operatorhub/":                       "",
		"clusters/" + cl + "/subscriptions/etcd.yaml": subscription(ns, "etcd", "etcd", "stable", "Manual", "etcdoperator.v0.9.2"),
	}
	f := newHubFleet(t, cl, "Manual", []string{"operatorhub"}, files)
	f.plan(t)
	f.openPR(t, 1, "olmops/"+cl+"/"+ns+"/etcd")
	f.gh.ClosePR(t, 1)

	f.plan(t)
	if pr, ok := f.gh.PR(2); ok {
		t.Errorf("the rejected install was proposed again: %+v", pr)
	}
	git(t, f.Git, "pull", "--quiet", "--ff-only", "origin", "main")
	out := runOlmops(t, f.Git, "plan", "--check", "--cluster", cl)
	if !strings.Contains(out, "proposal #1 was closed without merging") {
		t.Errorf("plan --check does not call the closed proposal rejected:\n%s", out)
	}
	f.apply(t)
	err := cluster.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "etcd-operator"}, &appsv1.Deployment{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("etcd-operator of a rejected proposal is in the cluster (%v)", err)
	}

	// Only that target was rejected: another one is proposed afresh.
	f.write(t, "clusters/"+cl+"/subscriptions/etcd.yaml", subscription(ns, "etcd", "etcd", "stable", "Manual", "etcdoperator.v0.9.4"))
	f.commitPush(t, "etcd: start at 0.9.4")
	f.plan(t)
	if pr := f.openPR(t, 2, "olmops/"+cl+"/"+ns+"/etcd"); !strings.Contains(pr.Title, "0.9.4") {
		t.Errorf("the new proposal's title %q does not name 0.9.4", pr.Title)
	}
}

// A hop the API server refuses fails the plan where it stands: apply
// exits 1, the carrying commit's status fails naming the hop's bundle,
// and neither that hop nor the next one changed the cluster.
func TestRefusedHopStopsThePath(t *testing.T) {
	const cl, ns = "refusing", "refusing-etcd"
	files := map[string]string{
		"clusters/" + cl + "/subscriptions/etcd.yaml": subscription(ns, "etcd", "etcd", "stable", "Automatic", "etcdoperator.v0.9.0"),
	}
	for p, file := range operatorhub(t, func(t *testing.T, name, content string) string {
		return monitored(t, name, oneStepChain(t, name, content))
	}) {
		files["catalogs/operatorhub/"+p] = string(file.Data)
	}
	f := newHubFleet(t, cl, "Automatic", []string{"operatorhub"}, files)
	f.plan(t)
	f.apply(t)
	if img := etcdImage(t, ns); !strings.HasSuffix(img, ":v0.9.0") {
		t.Fatalf("etcd-operator runs %s, want v0.9.0", img)
	}

	f.plan(t) // 0.9.0 → 0.9.2 (refused) → 0.9.4
	out, err := f.Olmops(t.Context(), olmops, f.applyArgs(t)...)
	if err == nil {
		t.Errorf("apply exited 0 after a refused hop:\n%s", out)
	}
	carrier := f.carrier(t, ns, "etcd")
	s, _ := f.status(carrier, commitstatus.Context(cl, ns, "etcd"))
	if s.State != "failure" || !strings.HasPrefix(s.Description, "etcdoperator.v0.9.2 failed: ") || !strings.Contains(s.Description, "ServiceMonitor") {
		t.Errorf("status on the carrying commit %+v, want failure of etcdoperator.v0.9.2 naming the ServiceMonitor", s)
	}
	for _, d := range f.descriptions(carrier, commitstatus.Context(cl, ns, "etcd")) {
		if strings.Contains(d, "etcdoperator.v0.9.4") {
			t.Errorf("the hop after the refused one was started: %q", d)
		}
	}
	if img := etcdImage(t, ns); !strings.HasSuffix(img, ":v0.9.0") {
		t.Errorf("etcd-operator runs %s after a refused hop, want v0.9.0 untouched", img)
	}
}

// monitored gives etcd 0.9.2's bundle a ServiceMonitor, a kind OLM
// installs but that this cluster has no CRD for: the API server refuses it.
func monitored(t *testing.T, name, content string) string {
	if name != "etcd/catalog.yaml" {
		return content
	}
	const anchor = "name: etcdoperator.v0.9.2\nimage: quay.io/olmops-examples/etcd-operator-bundle:v0.9.2\nproperties:\n"
	obj := `{"apiVersion":"monitoring.coreos.com/v1","kind":"ServiceMonitor","metadata":{"name":"etcd-operator"},` +
		`"spec":{"selector":{"matchLabels":{"name":"etcd-operator"}},"endpoints":[{"port":"metrics"}]}}`
	out := strings.Replace(content, anchor, anchor+"  - type: olm.bundle.object\n    value:\n      data: "+
		base64.StdEncoding.EncodeToString([]byte(obj))+"\n", 1)
	if out == content {
		t.Fatal("examples' etcd catalog changed: no place for the ServiceMonitor of etcdoperator.v0.9.2")
	}
	return out
}

// applyArgs runs one pass of the controller for the fleet's cluster with
// the binary, posting statuses to the GitHub fake.
func (f *hubFleet) applyArgs(t *testing.T) []string {
	return []string{"apply", "--repo", f.URL, "--cluster", f.cluster, "--kubeconfig", cluster.Kubeconfig,
		"--cache-dir", filepath.Join(f.cache, "apply"), "--health-timeout", "1m", "--post-statuses"}
}

// apply runs applyArgs and fails the test when apply fails.
func (f *hubFleet) apply(t *testing.T) string {
	t.Helper()
	return runOlmops(t, f.Git, f.applyArgs(t)...)
}
