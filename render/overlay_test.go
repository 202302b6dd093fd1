package render

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const overlayDir = "clusters/prod/overlays/demo"

// overlayFS holds an overlay folder, its files given relative to it.
func overlayFS(files map[string]string) fstest.MapFS {
	fsys := fstest.MapFS{
		// Beside the overlay, never to be read.
		"clusters/prod/secret.yaml": {Data: []byte("apiVersion: v1\nkind: Secret\nmetadata: {name: leaked}\n")},
	}
	for name, data := range files {
		fsys[overlayDir+"/"+name] = &fstest.MapFile{Data: []byte(data)}
	}
	return fsys
}

func TestOverlay(t *testing.T) {
	res := mustRender(t, synthetic(t, nil), Options{Namespace: "ops"})
	fsys := overlayFS(map[string]string{
		"kustomization.yaml": `# The cluster's changes to the demo operator.
apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources:
- networkpolicy.yaml
patches:
- path: deployment-patch.yaml
images:
- name: example.com/demo
  newName: registry.internal/demo
  newTag: v1.2.3-patched
commonAnnotations:
  owner: platform-team
`,
		"deployment-patch.yaml": `apiVersion: apps/v1
kind: Deployment
metadata:
  name: demo-operator
  namespace: ops
spec:
  replicas: 2
  template:
    spec:
      containers:
      - name: manager
        env:
        - name: LOG_LEVEL
          value: debug
`,
		"networkpolicy.yaml": `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: demo-operator
  namespace: ops
spec:
  podSelector: {matchLabels: {app: demo}}
  policyTypes: [Ingress]
`,
	})
	out, err := Overlay(res.Objects, fsys, overlayDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(out) != len(res.Objects)+1 {
		t.Fatalf("%d objects, want the %d rendered and the NetworkPolicy", len(out), len(res.Objects))
	}
	for i := 1; i < len(out); i++ {
		if Less(out[i], out[i-1]) {
			t.Errorf("%s sorted after %s", idOf(out[i]), idOf(out[i-1]))
		}
	}
	mustFind(t, out, "NetworkPolicy", "ops", "demo-operator")
	dep := mustFind(t, out, "Deployment", "ops", "demo-operator")
	checks := []struct {
		path []string
		want string
	}{
		{[]string{"spec", "replicas"}, "2"},
		{[]string{"metadata", "annotations", "owner"}, "platform-team"},
		// Values keep their types through kustomize: a timestamp-like
		// string stays a string, numbers stay integers.
		{[]string{"spec", "template", "metadata", "annotations", "createdAt"}, `"2024-05-01T12:00:00Z"`},
		{[]string{"spec", "revisionHistoryLimit"}, "1"},
	}
	for _, c := range checks {
		if got := field(t, dep, c.path...); got != c.want {
			t.Errorf("%s = %s, want %s", strings.Join(c.path, "."), got, c.want)
		}
	}
	if v, _, _ := unstructured.NestedFieldNoCopy(dep.Object, "spec", "revisionHistoryLimit"); v != int64(1) {
		t.Errorf("revisionHistoryLimit is a %T", v)
	}
	cs := containers(t, dep, "containers")
	if got := cs["manager"]["image"]; got != "registry.internal/demo:v1.2.3-patched" {
		t.Errorf("image = %v", got)
	}
	if got := strings.Join(envNames(cs["manager"]), ","); got != "LOG_LEVEL=debug,WATCH_NAMESPACE=<from>,OPERATOR_CONDITION_NAME=demo-operator.v1.2.3" {
		t.Errorf("env = %s", got)
	}
	if cs["sidecar"]["image"] != "example.com/sidecar:v1" {
		t.Errorf("sidecar image = %v", cs["sidecar"]["image"])
	}
}

func TestOverlayRefusals(t *testing.T) {
	tests := []struct {
		name   string
		files  map[string]string
		want   string
		wantIs error
	}{
		{"resource outside the folder", map[string]string{"kustomization.yaml": "resources:\n- ../../secret.yaml\n"},
			overlayDir + `/kustomization.yaml:2: "../../secret.yaml" leaves the overlay folder`, nil},
		{"patch outside the folder", map[string]string{"kustomization.yaml": "patches:\n- path: ../../secret.yaml\n"},
			overlayDir + `/kustomization.yaml:2: "../../secret.yaml" leaves the overlay folder`, nil},
		{"nested kustomization leaving the folder", map[string]string{"kustomization.yaml": "resources:\n- base\n", "base/kustomization.yaml": "resources:\n- ok.yaml\n- ../../x.yaml\n"},
			overlayDir + `/base/kustomization.yaml:3: "../../x.yaml" leaves the overlay folder`, nil},
		{"absolute path", map[string]string{"kustomization.yaml": "resources:\n- /clusters/prod/secret.yaml\n"},
			overlayDir + `/kustomization.yaml:2: "/clusters/prod/secret.yaml" is an absolute path`, nil},
		// The checks are a courtesy; the in-memory copy holds nothing else.
		{"dot segments", map[string]string{"kustomization.yaml": "resources:\n- ./sub/../../../secret.yaml\n"},
			overlayDir + `/kustomization.yaml:2: "./sub/../../../secret.yaml" leaves the overlay folder`, nil},
		{"remote resource", map[string]string{"kustomization.yaml": "resources:\n- local.yaml\n- https://github.com/acme/ops//base?ref=v1\n"},
			overlayDir + `/kustomization.yaml:3: "https://github.com/acme/ops//base?ref=v1" is remote`, nil},
		{"github shorthand", map[string]string{"kustomization.yaml": "components:\n- github.com/acme/ops/component\n"},
			overlayDir + `/kustomization.yaml:2: "github.com/acme/ops/component" is remote`, nil},
		{"scp-style git", map[string]string{"kustomization.yaml": "resources:\n- git@gitlab.com:acme/ops.git\n"},
			overlayDir + `/kustomization.yaml:2: "git@gitlab.com:acme/ops.git" is remote`, nil},
		{"remote patch", map[string]string{"kustomization.yaml": "patchesJson6902:\n- target: {kind: Deployment, name: x}\n  path: http://example.com/p.yaml\n"},
			overlayDir + `/kustomization.yaml:3: "http://example.com/p.yaml" is remote`, nil},
		{"remote generator file", map[string]string{"kustomization.yaml": "configMapGenerator:\n- name: c\n  files:\n  - key=https://example.com/f\n"},
			overlayDir + `/kustomization.yaml:4: "key=https://example.com/f" is remote`, nil},
		{"remote in a nested kustomization", map[string]string{"kustomization.yaml": "resources:\n- base\n", "base/kustomization.yaml": "resources:\n- https://example.com/all.yaml\n"},
			overlayDir + `/base/kustomization.yaml:2: "https://example.com/all.yaml" is remote`, nil},
		{"exec function", map[string]string{"kustomization.yaml": "transformers:\n- fn.yaml\n", "fn.yaml": "apiVersion: example.com/v1\nkind: Fn\nmetadata:\n  name: fn\n  annotations:\n    config.kubernetes.io/function: |\n      exec:\n        path: /bin/sh\n"},
			overlayDir + "/kustomization.yaml: ", nil},
		{"no kustomization", map[string]string{"patch.yaml": "a: b\n"},
			overlayDir + "/kustomization.yaml: file does not exist", fs.ErrNotExist},
		{"kustomization syntax", map[string]string{"kustomization.yaml": "resources:\n  - a\n - b\n"},
			overlayDir + "/kustomization.yaml:", nil},
		{"resources not a list", map[string]string{"kustomization.yaml": "\nresources: a.yaml\n"},
			overlayDir + "/kustomization.yaml:2: resources is not a list", nil},
		{"a list, not a kustomization", map[string]string{"kustomization.yaml": "- a\n"},
			overlayDir + "/kustomization.yaml:1: a kustomization must be a map", nil},
		{"OperatorCondition overrides by patch", map[string]string{"kustomization.yaml": `patches:
- target: {kind: OperatorCondition}
  patch: |
    - op: add
      path: /spec/overrides
      value: [{type: Upgradeable, status: "True", reason: Git, message: from a pull request}]
`}, overlayDir + "/kustomization.yaml: OperatorCondition.operators.coreos.com ops/demo-operator.v1.2.3 sets spec.overrides", nil},
		{"OperatorCondition overrides as a resource", map[string]string{"kustomization.yaml": "resources:\n- oc.yaml\n",
			"oc.yaml": "apiVersion: operators.coreos.com/v1\nkind: OperatorCondition\nmetadata: {name: other.v1, namespace: ops}\nspec:\n  overrides: []\n"},
			overlayDir + "/kustomization.yaml: OperatorCondition.operators.coreos.com ops/other.v1 sets spec.overrides", nil},
		{"reserved file name", map[string]string{"kustomization.yaml": "", RenderedFile: "a: b\n"},
			overlayDir + "/kustomization.yaml: the overlay folder has a file named " + RenderedFile, nil},
	}
	objs := mustRender(t, synthetic(t, nil), Options{Namespace: "ops"}).Objects
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Overlay(objs, overlayFS(tt.files), overlayDir)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error = %v, want it to start with %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "leaked") {
				t.Errorf("error shows the file outside the overlay: %v", err)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("error does not wrap %v", tt.wantIs)
			}
		})
	}
}

// An overlay may be the root of its filesystem.
func TestOverlayAtRoot(t *testing.T) {
	objs := mustRender(t, synthetic(t, nil), Options{Namespace: "ops"}).Objects
	fsys := fstest.MapFS{
		"kustomization.yaml":      {Data: []byte("resources:\n- base\n")},
		"base/kustomization.yaml": {Data: []byte("resources:\n- cm.yaml\n")},
		"base/cm.yaml":            {Data: []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: extra, namespace: ops}\n")},
	}
	out, err := Overlay(objs, fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	mustFind(t, out, "ConfigMap", "ops", "extra")
	fsys["base/kustomization.yaml"] = &fstest.MapFile{Data: []byte("resources:\n- ../../x.yaml\n")}
	if _, err := Overlay(objs, fsys, "."); err == nil || !strings.HasPrefix(err.Error(), `base/kustomization.yaml:2: "../../x.yaml" leaves the overlay folder`) {
		t.Errorf("error = %v", err)
	}
}

func TestOverlaySymlink(t *testing.T) {
	fsys := overlayFS(map[string]string{"kustomization.yaml": "resources:\n- link.yaml\n"})
	fsys[overlayDir+"/link.yaml"] = &fstest.MapFile{Data: []byte("../../secret.yaml"), Mode: fs.ModeSymlink}
	_, err := Overlay(nil, fsys, overlayDir)
	if err == nil || !strings.Contains(err.Error(), "link.yaml: an overlay may hold only files and folders") {
		t.Errorf("error = %v", err)
	}
}

// An empty kustomization, or one naming the rendered file itself, changes
// nothing.
func TestOverlayIdentity(t *testing.T) {
	objs := mustRender(t, synthetic(t, nil), Options{Namespace: "ops"}).Objects
	for _, k := range []string{"", "resources:\n- " + RenderedFile + "\n"} {
		out, err := Overlay(objs, overlayFS(map[string]string{"kustomization.yaml": k}), overlayDir)
		if err != nil {
			t.Fatalf("%q: %v", k, err)
		}
		a, _ := Files(objs)
		b, _ := Files(out)
		if len(a) != len(b) {
			t.Fatalf("%q: %d objects, want %d", k, len(b), len(a))
		}
		for name, data := range a {
			if string(b[name]) != string(data) {
				t.Errorf("%q: %s changed:\n%s\nwant\n%s", k, name, b[name], data)
			}
		}
	}
}

// Builds may run side by side, as a controller serving several clusters
// runs them; none changes the objects it is given.
func TestOverlayConcurrent(t *testing.T) {
	objs := mustRender(t, synthetic(t, nil), Options{Namespace: "ops"}).Objects
	want, _ := Files(objs)
	fsys := overlayFS(map[string]string{"kustomization.yaml": "commonLabels: {env: prod}\nimages:\n- {name: example.com/demo, newTag: v2}\n"})
	errs := make(chan error, 4)
	for range 4 {
		go func() {
			out, err := Overlay(objs, fsys, overlayDir)
			if err == nil && out[0].GetLabels()["env"] != "prod" {
				err = errors.New("the overlay's label is missing")
			}
			errs <- err
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
	if got, _ := Files(objs); len(got) != len(want) || string(got["deployment-demo-operator.yaml"]) != string(want["deployment-demo-operator.yaml"]) {
		t.Errorf("Overlay changed its input")
	}
}
