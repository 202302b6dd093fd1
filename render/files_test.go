package render

import (
	"bytes"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// mapFS lays files out in a folder of an in-memory filesystem.
func mapFS(dir string, files map[string][]byte) fstest.MapFS {
	// A file that is no manifest keeps the folder there when it is empty.
	fsys := fstest.MapFS{dir + "/README.md": {Data: []byte("rendered")}}
	for name, data := range files {
		fsys[dir+"/"+name] = &fstest.MapFile{Data: data}
	}
	return fsys
}

func TestFilesRoundTrip(t *testing.T) {
	b := realBundle(t, patternsCatalog, patternsPackage, patternsBundle)
	res := mustRender(t, b, Options{Namespace: "ops", TargetNamespaces: []string{"ops"}})
	files, err := Files(res.Objects)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != len(res.Objects) {
		t.Fatalf("%d files for %d objects", len(files), len(res.Objects))
	}
	back, err := ReadFiles(mapFS("m", files), "m")
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != len(res.Objects) {
		t.Fatalf("read back %d objects, want %d", len(back), len(res.Objects))
	}
	for i := range back {
		if !reflect.DeepEqual(back[i].Object, res.Objects[i].Object) {
			t.Errorf("%s changed on its way through files", idOf(back[i]))
		}
	}
	again, err := Files(back)
	if err != nil {
		t.Fatal(err)
	}
	if !maps.EqualFunc(files, again, bytes.Equal) {
		t.Errorf("files differ after a round trip")
	}
	if data := files["deployment-patterns-operator-controller-manager.yaml"]; !bytes.HasPrefix(data, []byte("apiVersion: apps/v1\nkind: Deployment\nmetadata:\n")) {
		t.Errorf("deployment file starts with %q", data[:min(len(data), 60)])
	}
}

func TestFileNames(t *testing.T) {
	obj := func(apiVersion, kind, ns, name string) *unstructured.Unstructured {
		return newObject(apiVersion, kind, ns, name)
	}
	tests := []struct {
		name string
		objs []*unstructured.Unstructured
		want []string
	}{
		{"plain", []*unstructured.Unstructured{obj("v1", "ConfigMap", "ops", "Settings"), obj("rbac.authorization.k8s.io/v1", "ClusterRole", "", "system:auth-delegator")},
			[]string{"clusterrole-system_auth-delegator.yaml", "configmap-settings.yaml"}},
		{"namespace on collision only", []*unstructured.Unstructured{obj("v1", "ConfigMap", "a", "x"), obj("v1", "ConfigMap", "b", "x"), obj("v1", "ConfigMap", "a", "y")},
			[]string{"configmap-a-x.yaml", "configmap-b-x.yaml", "configmap-y.yaml"}},
		{"group on collision", []*unstructured.Unstructured{obj("v1", "Service", "a", "x"), obj("serving.knative.dev/v1", "Service", "a", "x")},
			[]string{"service-a-x.yaml", "service.serving.knative.dev-a-x.yaml"}},
		{"case folding collides", []*unstructured.Unstructured{obj("v1", "ConfigMap", "", "X"), obj("v1", "ConfigMap", "", "x")},
			[]string{"configmap-x-79022b6e.yaml", "configmap-x-c389be84.yaml"}},
		{"a level-1 name taken by another's level-0", []*unstructured.Unstructured{obj("v1", "ConfigMap", "a", "x"), obj("v1", "ConfigMap", "b", "x"), obj("v1", "ConfigMap", "", "a-x")},
			[]string{"configmap-a-x-c7ef6bc1.yaml", "configmap-a-x.yaml", "configmap-b-x.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := Files(tt.objs)
			if err != nil {
				t.Fatal(err)
			}
			got := slices.Sorted(maps.Keys(files))
			if !slices.Equal(got, tt.want) {
				t.Errorf("names = %v, want %v", got, tt.want)
			}
			reversed := slices.Clone(tt.objs)
			slices.Reverse(reversed)
			again, _ := Files(reversed)
			if !slices.Equal(slices.Sorted(maps.Keys(again)), got) {
				t.Errorf("names depend on the order of objects")
			}
		})
	}
	long := obj("v1", "ConfigMap", "", strings.Repeat("n", 253))
	files, err := Files([]*unstructured.Unstructured{long})
	if err != nil {
		t.Fatal(err)
	}
	for name := range files {
		if len(name) > 255 {
			t.Errorf("name of %d bytes", len(name))
		}
	}
	if _, err := Files([]*unstructured.Unstructured{obj("v1", "ConfigMap", "", "a"), obj("v1", "ConfigMap", "", "a")}); err == nil {
		t.Errorf("two objects of one identity: no error")
	}
}

func TestReadFilesErrors(t *testing.T) {
	cm := "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n"
	tests := []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"syntax", map[string]string{"a.yaml": cm + "data:\n  k: [\n"}, "m/a.yaml:6: "},
		{"duplicate key", map[string]string{"a.yaml": cm + "data: {}\ndata: {}\n"}, "m/a.yaml:6: "},
		{"no name", map[string]string{"a.yaml": "apiVersion: v1\nkind: ConfigMap\n"}, "m/a.yaml:1: object has no metadata.name"},
		{"one object twice", map[string]string{"a.yaml": cm, "b.yaml": "# the same\n" + cm}, "m/b.yaml:2: ConfigMap a is also at m/a.yaml:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string][]byte{}
			for k, v := range tt.files {
				files[k] = []byte(v)
			}
			_, err := ReadFiles(mapFS("m", files), "m")
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to start with %q", err, tt.want)
			}
		})
	}
	if _, err := ReadFiles(fstest.MapFS{}, "missing"); err == nil {
		t.Errorf("a missing folder: no error")
	}
}

// FuzzReadFiles checks that whatever ReadFiles accepts survives Files and
// ReadFiles again unchanged, bytes and values.
func FuzzReadFiles(f *testing.F) {
	f.Add([]byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a, labels: {x: y}}\ndata: {k: v, n: '1'}\n"))
	f.Add([]byte("apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {a: 'on', b: 0755, c: 1e3, d: 2024-01-01}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: b}\n"))
	f.Add([]byte(`{"apiVersion": "x/v1", "kind": "K", "metadata": {"name": "n"}, "spec": {"big": 9007199254740993, "f": 1.5, "neg": -0.0, "e": 1e400}}`))
	f.Add([]byte(syntheticCSV))
	f.Fuzz(func(t *testing.T, data []byte) {
		objs, err := ReadFiles(fstest.MapFS{"m/in.yaml": {Data: data}}, "m")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "m/in.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		files, err := Files(objs)
		if err != nil {
			t.Fatalf("Files: %v", err)
		}
		back, err := ReadFiles(mapFS("m", files), "m")
		if err != nil {
			t.Fatalf("ReadFiles of Files: %v\n%s", err, files)
		}
		if len(back) != len(objs) {
			t.Fatalf("%d objects back, want %d", len(back), len(objs))
		}
		for i := range back {
			if !reflect.DeepEqual(back[i].Object, objs[i].Object) {
				t.Errorf("object changed:\n%#v\n%#v", objs[i].Object, back[i].Object)
			}
		}
		again, err := Files(back)
		if err != nil || !maps.EqualFunc(files, again, bytes.Equal) {
			t.Errorf("files changed on a second round trip: %v", err)
		}
	})
}
