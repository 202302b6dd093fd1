package plan

import (
	"context"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/subscription"
)

// example reads the example repository into a MapFS the tests can edit.
func example(t *testing.T) fstest.MapFS {
	t.Helper()
	out := fstest.MapFS{}
	root := os.DirFS("../examples")
	err := fs.WalkDir(root, ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := fs.ReadFile(root, p)
		out[p] = &fstest.MapFile{Data: data}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// input loads what Cluster needs for one example cluster from fsys.
func input(t *testing.T, fsys fs.FS, cluster string, committed map[Key]*Committed) Input {
	t.Helper()
	ctx := t.Context()
	repo, err := v1alpha1.Load("olmops.yaml", mustRead(t, fsys, "olmops.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	repo.SetDefaults("main")
	var cats []*catalog.Catalog
	for _, c := range repo.Spec.Catalogs {
		sub, _ := fs.Sub(fsys, c.Path)
		cfg, err := fbc.Load(ctx, sub, fbc.Options{Prefix: c.Path})
		if err != nil {
			t.Fatal(err)
		}
		cat := catalog.New(c.Name, cfg)
		cat.Priority = int(c.Priority)
		cats = append(cats, cat)
	}
	var cl v1alpha1.Cluster
	for _, c := range repo.Spec.Clusters {
		if c.Name == cluster {
			cl = c
		}
	}
	objs, err := subscription.LoadObjects(ctx, fsys, path.Join(cl.Path, "subscriptions"))
	if err != nil {
		t.Fatal(err)
	}
	return Input{Cluster: cl, Catalogs: cats, Objects: objs, Repo: fsys, Committed: committed, Bundles: &Sources{Repo: fsys}, Version: "v1"}
}

func mustRead(t *testing.T, fsys fs.FS, p string) []byte {
	t.Helper()
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// commit turns a result into what the target branch would hold.
func commit(t *testing.T, res *Result) map[Key]*Committed {
	out := map[Key]*Committed{}
	for _, p := range res.Plans {
		if p.State != Remove {
			out[p.Key] = &Committed{Plan: p.File, Files: p.Files}
		}
	}
	return out
}

// settle plans and commits until nothing changes, as repeated runs with
// every proposal merged would.
func settle(t *testing.T, fsys fs.FS, cluster string) map[Key]*Committed {
	t.Helper()
	var committed map[Key]*Committed
	for range 5 {
		res := plan(t, input(t, fsys, cluster, committed))
		if len(res.Changed()) == 0 {
			return committed
		}
		committed = commit(t, res)
	}
	t.Fatalf("%s does not settle", cluster)
	return nil
}

func states(res *Result) map[string]State {
	out := map[string]State{}
	for _, p := range res.Plans {
		out[p.Key.String()] = p.State
	}
	return out
}

func plan(t *testing.T, in Input) *Result {
	t.Helper()
	res, err := Cluster(context.Background(), in, nil)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestClusterLifecycle(t *testing.T) {
	fsys := example(t)
	first := plan(t, input(t, fsys, "prod-east", nil))
	if got := states(first); got["etcd-system/etcd"] != Install || got["etcd-system/acme-db"] != Install {
		t.Fatalf("first plan states = %v", got)
	}
	etcd := first.Plans[1]
	if etcd.File.Spec.To.Name != "etcdoperator.v0.9.2" || etcd.Files["manifests/deployment-etcd-operator.yaml"] == nil {
		t.Fatalf("etcd plan = %+v files %v", etcd.File.Spec, keys(etcd.Files))
	}

	t.Run("the committed install upgrades along the channel", func(t *testing.T) {
		p := find(t, plan(t, input(t, fsys, "prod-east", commit(t, first))), "etcd-system/etcd")
		if p.State != Upgrade || p.File.Spec.From.Name != "etcdoperator.v0.9.2" || p.File.Spec.To.Name != "etcdoperator.v0.9.4" || p.File.Spec.Path[0].Edge != "replaces" {
			t.Fatalf("state %s spec %+v", p.State, p.File.Spec)
		}
	})
	t.Run("same inputs are up to date", func(t *testing.T) {
		staging := plan(t, input(t, fsys, "staging", nil))
		for _, v := range []string{"v1", "v2"} { // a new olmops version alone changes nothing
			in := input(t, fsys, "staging", commit(t, staging))
			in.Version = v
			for k, s := range states(plan(t, in)) {
				if s != UpToDate {
					t.Errorf("%s with olmops %s: %s, want UpToDate", k, v, s)
				}
			}
		}
	})
	settled := settle(t, fsys, "prod-east")
	t.Run("config change refreshes the manifests", func(t *testing.T) {
		edited := example(t)
		sub := string(mustRead(t, edited, "clusters/prod-east/subscriptions/etcd.yaml"))
		edited["clusters/prod-east/subscriptions/etcd.yaml"] = &fstest.MapFile{Data: []byte(sub + "  config:\n    env:\n      - {name: LOG_LEVEL, value: debug}\n")}
		res := plan(t, input(t, edited, "prod-east", settled))
		p := find(t, res, "etcd-system/etcd")
		if p.State != Refresh || !strings.Contains(string(p.Files["manifests/deployment-etcd-operator.yaml"]), "LOG_LEVEL") {
			t.Fatalf("state %s, deployment:\n%s", p.State, p.Files["manifests/deployment-etcd-operator.yaml"])
		}
		if len(p.Changes.Changed) != 1 || p.Changes.Changed[0].Kind != "Deployment" {
			t.Errorf("changes = %+v", p.Changes)
		}
	})
	t.Run("overlay patches the manifests", func(t *testing.T) {
		edited := example(t)
		edited["clusters/prod-east/overlays/etcd/kustomization.yaml"] = &fstest.MapFile{Data: []byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\ncommonLabels:\n  team: storage\n")}
		p := find(t, plan(t, input(t, edited, "prod-east", settled)), "etcd-system/etcd")
		if p.State != Refresh || !strings.Contains(string(p.Files["manifests/deployment-etcd-operator.yaml"]), "team: storage") {
			t.Fatalf("state %s, deployment:\n%s", p.State, p.Files["manifests/deployment-etcd-operator.yaml"])
		}
	})
	t.Run("a broken overlay fails the cluster", func(t *testing.T) {
		edited := example(t)
		edited["clusters/prod-east/overlays/etcd/kustomization.yaml"] = &fstest.MapFile{Data: []byte("resources: [../../../../etc/passwd]\n")}
		_, err := Cluster(t.Context(), input(t, edited, "prod-east", settled), nil)
		if err == nil || !strings.Contains(err.Error(), "clusters/prod-east/overlays/etcd/kustomization.yaml") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("a removed subscription removes its plan", func(t *testing.T) {
		edited := example(t)
		delete(edited, "clusters/prod-east/subscriptions/acme-db.yaml")
		res := plan(t, input(t, edited, "prod-east", settled))
		if got := states(res); got["etcd-system/acme-db"] != Remove || got["etcd-system/etcd"] != UpToDate {
			t.Fatalf("states = %v", got)
		}
	})
}

func find(t *testing.T, res *Result, key string) Plan {
	t.Helper()
	for _, p := range res.Plans {
		if p.Key.String() == key {
			return p
		}
	}
	t.Fatalf("no plan %s in %v", key, states(res))
	return Plan{}
}

func keys[V any](m map[string]V) []string { return sortedKeys(m) }

func TestMarkerRoundTrip(t *testing.T) {
	m := Marker{Cluster: "prod-east", Namespace: "ops", Name: "etcd", To: "etcdoperator.v0.9.4", Inputs: "sha256:" + strings.Repeat("ab", 32)}
	got, ok := ParseMarker("body\n\n" + m.String() + "\n")
	if !ok || got != m {
		t.Fatalf("ParseMarker = %+v, %v", got, ok)
	}
	if _, ok := ParseMarker("no marker"); ok {
		t.Error("found a marker in a body without one")
	}
}

// Keys finds the <namespace>/<name> folders under a cluster's plans, in
// path order, and ignores stray files; no plans folder is no plans.
func TestKeys(t *testing.T) {
	c := v1alpha1.Cluster{Name: "c", Path: "clusters/c"}
	fsys := fstest.MapFS{
		"clusters/c/plans/ns-b/x/installplan.yaml": {},
		"clusters/c/plans/ns-a/z/installplan.yaml": {},
		"clusters/c/plans/ns-a/y/manifests/a.yaml": {},
		"clusters/c/plans/README.md":               {},
		"clusters/c/plans/ns-a/notes.txt":          {},
	}
	keys, err := Keys(fsys, c)
	want := []Key{{Namespace: "ns-a", Name: "y"}, {Namespace: "ns-a", Name: "z"}, {Namespace: "ns-b", Name: "x"}}
	if err != nil || !slices.Equal(keys, want) {
		t.Errorf("Keys = %v, %v; want %v", keys, err, want)
	}
	if keys, err := Keys(fstest.MapFS{}, c); err != nil || keys != nil {
		t.Errorf("no plans folder: %v, %v", keys, err)
	}
}
