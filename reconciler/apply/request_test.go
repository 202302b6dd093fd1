package apply

import (
	"bytes"
	"maps"
	"path"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
)

const planDir = "clusters/prod/plans/etcd-system/etcd"

// planFS writes a two-hop plan folder for an install in ns, the way
// `olmops plan` lays it out, manifestsDigest included.
func planFS(tb testing.TB, ns string) fstest.MapFS {
	tb.Helper()
	fsys := fstest.MapFS{}
	manifests := map[string][]byte{}
	ip := &v1alpha1.InstallPlan{APIVersion: v1alpha1.GroupVersion, Kind: v1alpha1.InstallPlanKind,
		Metadata: v1alpha1.PlanMeta{Name: "etcd", Namespace: ns},
		Spec: v1alpha1.InstallPlanSpec{Cluster: "prod", Package: "etcd", Approval: v1alpha1.ApprovalAutomatic,
			Subscription:    v1alpha1.PlanSubscription{Kind: "Subscription", File: "clusters/prod/subscriptions/etcd.yaml"},
			SuccessorPolicy: "Classic", To: v1alpha1.PlanBundle{Name: "etcdoperator.v0.9.4"}}}
	for i, b := range []string{"etcdoperator.v0.9.2", "etcdoperator.v0.9.4"} {
		dir := v1alpha1.ManifestsDir
		if i == 0 {
			dir = path.Join(v1alpha1.HopsDir, "01-"+b)
		}
		files, err := render.Files(etcdHop(tb, ns, b).Objects)
		if err != nil {
			tb.Fatal(err)
		}
		for name, data := range files {
			fsys[path.Join(planDir, dir, name)] = &fstest.MapFile{Data: data}
			manifests[path.Join(dir, name)] = data
		}
		ip.Spec.Path = append(ip.Spec.Path, v1alpha1.PlanHop{PlanBundle: v1alpha1.PlanBundle{Name: b}, Edge: "replaces", Manifests: dir})
	}
	ip.Spec.ManifestsDigest = v1alpha1.ManifestsDigest(manifests)
	data, err := ip.Marshal()
	if err != nil {
		tb.Fatal(err)
	}
	fsys[path.Join(planDir, v1alpha1.InstallPlanFile)] = &fstest.MapFile{Data: data}
	return fsys
}

// reseal sets the manifestsDigest of the plan in fsys to what its folder
// holds now, as `olmops plan` would after a change of the manifests.
func reseal(tb testing.TB, fsys fstest.MapFS) {
	tb.Helper()
	file := path.Join(planDir, v1alpha1.InstallPlanFile)
	ip, err := v1alpha1.LoadInstallPlan(file, fsys[file].Data)
	if err != nil {
		tb.Fatal(err)
	}
	manifests := map[string][]byte{}
	for name, f := range fsys {
		if rel, ok := strings.CutPrefix(name, planDir+"/"); ok && name != file {
			manifests[rel] = f.Data
		}
	}
	ip.Spec.ManifestsDigest = v1alpha1.ManifestsDigest(manifests)
	if fsys[file].Data, err = ip.Marshal(); err != nil {
		tb.Fatal(err)
	}
}

func TestReadRequest(t *testing.T) {
	req, plan, err := ReadRequest(t.Context(), planFS(t, "etcd-system"), planDir)
	if err != nil {
		t.Fatal(err)
	}
	if req.Cluster != "prod" || req.Namespace != "etcd-system" || req.Subscription != "etcd" || plan.Spec.To.Name != "etcdoperator.v0.9.4" {
		t.Errorf("request %s/%s/%s, plan to %s", req.Cluster, req.Namespace, req.Subscription, plan.Spec.To.Name)
	}
	// 8 objects, and the 4 aggregated ClusterRoles of the owned etcdclusters API.
	if len(req.Hops) != 2 || req.Hops[0].Bundle != "etcdoperator.v0.9.2" || len(req.Hops[1].Objects) != 12 {
		t.Errorf("hops %+v", req.Hops)
	}
}

// A ClusterExtension's plan is applied as the service account it names.
func TestReadRequestServiceAccount(t *testing.T) {
	fsys := planFS(t, "etcd-system")
	f := fsys[planDir+"/installplan.yaml"]
	f.Data = bytes.Replace(f.Data, []byte("kind: Subscription\n"), []byte("kind: ClusterExtension\n    serviceAccount: installer\n"), 1)
	req, _, err := ReadRequest(t.Context(), fsys, planDir)
	if err != nil || req.ServiceAccount != "installer" {
		t.Fatalf("service account %q, %v; want installer", req.ServiceAccount, err)
	}
}

func TestReadRequestErrors(t *testing.T) {
	tests := []struct {
		name   string
		change func(fstest.MapFS)
		// reseal: the change is one `olmops plan` could make, so the
		// digest follows it.
		reseal bool
		want   []string
	}{
		{"no plan", func(f fstest.MapFS) { delete(f, planDir+"/installplan.yaml") }, false, []string{"read plan: open " + planDir + "/installplan.yaml"}},
		{"bad plan", func(f fstest.MapFS) {
			f[planDir+"/installplan.yaml"].Data = []byte("kind: InstallPlan\nspec: {bogus: 1}\n")
		}, false, []string{planDir + "/installplan.yaml:2:"}},
		{"bad manifest", func(f fstest.MapFS) {
			f[planDir+"/manifests/deployment-etcd-operator.yaml"].Data = []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata: [\n")
		}, true, []string{planDir + "/manifests/deployment-etcd-operator.yaml:"}},
		{"empty hop", func(f fstest.MapFS) {
			for name := range f {
				if strings.HasPrefix(name, planDir+"/hops/") {
					delete(f, name)
				}
			}
		}, true, []string{"hop etcdoperator.v0.9.2"}},
		{"manifest byte edited by hand", func(f fstest.MapFS) {
			d := f[planDir+"/manifests/deployment-etcd-operator.yaml"]
			d.Data = bytes.Clone(d.Data)
			d.Data[bytes.Index(d.Data, []byte("etcd-operator"))] = 'E'
		}, false, []string{planDir + "/installplan.yaml:", ": manifestsDigest sha256:", "does not match the manifests (sha256:"}},
		{"manifest added by hand", func(f fstest.MapFS) {
			f[planDir+"/manifests/configmap-extra.yaml"] = &fstest.MapFile{Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n")}
		}, false, []string{planDir + "/installplan.yaml:", "the plan was edited by hand; put changes in an overlay and run olmops plan"}},
		{"ClusterExtension without a service account", func(f fstest.MapFS) {
			f[planDir+"/installplan.yaml"].Data = bytes.Replace(f[planDir+"/installplan.yaml"].Data,
				[]byte("kind: Subscription"), []byte("kind: ClusterExtension"), 1)
		}, false, []string{planDir + "/installplan.yaml:9: a ClusterExtension's plan must name its service account"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fsys := planFS(t, "etcd-system")
			tt.change(fsys)
			if tt.reseal {
				reseal(t, fsys)
			}
			_, _, err := ReadRequest(t.Context(), fsys, planDir)
			if err == nil || !containsAll(err.Error(), tt.want...) {
				t.Errorf("error %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// FuzzReadRequest feeds arbitrary plan and manifest files: an error,
// never a panic, and a request that Apply accepts. A plan that loads is
// read again with its digest resealed, so that the manifest reaches the
// decoder.
func FuzzReadRequest(f *testing.F) {
	seed := planFS(f, "etcd-system")
	f.Add(seed[planDir+"/installplan.yaml"].Data, seed[planDir+"/manifests/deployment-etcd-operator.yaml"].Data)
	f.Add([]byte("kind: InstallPlan"), []byte("apiVersion: v1\nkind: ConfigMap\n"))
	f.Fuzz(func(t *testing.T, plan, manifest []byte) {
		fsys := maps.Clone(seed)
		fsys[planDir+"/installplan.yaml"] = &fstest.MapFile{Data: plan}
		fsys[planDir+"/manifests/deployment-etcd-operator.yaml"] = &fstest.MapFile{Data: manifest}
		check := func() {
			req, _, err := ReadRequest(t.Context(), fsys, planDir)
			if err == nil {
				if verr := req.validate(); verr != nil {
					t.Errorf("ReadRequest returned a request Apply refuses: %v", verr)
				}
			}
		}
		check()
		if _, err := v1alpha1.LoadInstallPlan(planDir+"/installplan.yaml", plan); err == nil {
			reseal(t, fsys)
			check()
		}
	})
}
