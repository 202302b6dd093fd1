package apply

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/render"
)

// etcdHopAs renders the etcd bundle as if package pkg shipped it, for an
// OwnNamespace install in ns: another operator with the same CRD.
func etcdHopAs(tb testing.TB, ns, pkg string) Hop {
	tb.Helper()
	etcdHop(tb, ns, "etcdoperator.v0.9.4") // loads the catalog
	b, err := render.FromCatalog(etcdCat.Bundle("etcd", "etcdoperator.v0.9.4"))
	if err != nil {
		tb.Fatal(err)
	}
	b.Package = pkg
	res, err := render.Render(b, render.Options{Namespace: ns, TargetNamespaces: []string{ns}})
	if err != nil {
		tb.Fatal(err)
	}
	return Hop{Bundle: "etcdoperator.v0.9.4", Objects: res.Objects}
}

// Two packages in namespaces that do not intersect install one CRD, as
// OLM allows: their applies agree on it, so neither undoes the other on
// each pass, and removing one keeps the CRD and the versions it serves.
func TestCRDSharedByTwoPackages(t *testing.T) {
	env := kube.Env(t)
	nsA, nsB := env.NewNamespace(t), env.NewNamespace(t)
	rollout(t, env, nsA)
	rollout(t, env, nsB)
	a := testApplier(env.Client)
	reqA := Request{Namespace: nsA, Subscription: "etcd", Package: "etcd", Hops: []Hop{etcdHopAs(t, nsA, "etcd")}}
	reqB := Request{Namespace: nsB, Subscription: "etcd-fork", Package: "etcd-fork", Hops: []Hop{etcdHopAs(t, nsB, "etcd-fork")}}
	resA, err := a.Apply(t.Context(), reqA)
	if err != nil {
		t.Fatal(err)
	}
	resB, err := a.Apply(t.Context(), reqB)
	if err != nil {
		t.Fatal(err)
	}

	// The next pass of each sends nothing: the CRD and its roles are as
	// both plans want them.
	reqA.Installed, reqA.Inventory = resA.Installed, resA.Inventory
	reqB.Installed, reqB.Inventory = resB.Installed, resB.Inventory
	for _, req := range []Request{reqA, reqB} {
		res, err := a.Apply(t.Context(), req)
		if err != nil || res.Applied != 0 {
			t.Errorf("%s: a pass with nothing changed sent %d objects (%v)", req.Package, res.Applied, err)
		}
	}

	// The first is removed; the CRD stays, serving what the second needs.
	if _, err := a.Remove(t.Context(), RemoveRequest{Cluster: "test", Namespace: nsA, Subscription: "etcd", Inventory: resA.Inventory}); err != nil {
		t.Fatal(err)
	}
	crd := get(t, env.Client, crdGVK, "", etcdCRD)
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	if len(versions) != 1 || versions[0].(map[string]any)["name"] != "v1beta2" || versions[0].(map[string]any)["served"] != true {
		t.Errorf("CRD versions after removing one package: %v", versions)
	}
	if _, ok := crd.GetLabels()[render.PackageLabel]; ok {
		t.Errorf("the shared CRD is labelled with one package: %v", crd.GetLabels())
	}
}
