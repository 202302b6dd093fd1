package kubetest

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// TestStartRejects covers the failures start detects before launching any
// process; fake binaries are enough to get past the assets check.
func TestStartRejects(t *testing.T) {
	fakeAssets := t.TempDir()
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if err := os.WriteFile(filepath.Join(fakeAssets, bin), nil, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	boom := errors.New("boom")
	tests := []struct {
		name    string
		assets  string
		opts    []Option
		wantIs  error
		wantSub string
	}{
		{name: "assets unset", assets: "", wantIs: errNoAssets, wantSub: "make test"},
		{name: "assets lack binaries", assets: t.TempDir(), wantIs: os.ErrNotExist, wantSub: "has no kube-apiserver, run `make envtest`"},
		{name: "missing CRD dir", assets: fakeAssets, opts: []Option{WithCRDDirs(filepath.Join(fakeAssets, "nope"))}, wantIs: os.ErrNotExist, wantSub: "CRD directory"},
		{name: "scheme error", assets: fakeAssets, opts: []Option{WithScheme(func(*runtime.Scheme) error { return boom })}, wantIs: boom, wantSub: "build the scheme"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv(assetsEnv, tt.assets)
			env, err := start(tt.opts)
			if err == nil {
				_ = env.Stop()
				t.Fatal("start succeeded, want an error")
			}
			if !errors.Is(err, tt.wantIs) || !strings.Contains(err.Error(), tt.wantSub) {
				t.Errorf("start error = %q, want one wrapping %v and saying %q", err, tt.wantIs, tt.wantSub)
			}
		})
	}
}

// TestStartWithCRDDirs starts a control plane of its own, to cover Start and
// CRDs installed from files before it returns.
func TestStartWithCRDDirs(t *testing.T) {
	dir := t.TempDir()
	crd := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.files.kubetest.olmops.io
spec:
  group: files.kubetest.olmops.io
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  scope: Cluster
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	if err := os.WriteFile(filepath.Join(dir, "gadgets.yaml"), []byte(crd), 0o644); err != nil {
		t.Fatal(err)
	}
	env := Start(t, WithCRDDirs(dir))
	var got apiextensionsv1.CustomResourceDefinition
	if err := env.Client.Get(t.Context(), client.ObjectKey{Name: "gadgets.files.kubetest.olmops.io"}, &got); err != nil {
		t.Fatal(err)
	}
	if !established(&got) {
		t.Errorf("gadgets CRD not Established after Start: %+v", got.Status.Conditions)
	}
}
