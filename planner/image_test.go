package planner

import (
	"encoding/base64"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

var bundleDoc = regexp.MustCompile(`(?s)schema: olm\.bundle\npackage: etcd\nname: etcdoperator\.v(\S+)\nimage: (\S+)\n.*?(\n---\n|$)`)

// A catalog that only names its bundles' images, as the Red Hat and
// OperatorHub catalogs do: olmops pulls the images from a registry and
// pins them by digest in the plan.
func TestPlanPullsBundleImages(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	files := examples(t)
	const path = "catalogs/operatorhub/etcd/catalog.yaml"
	pinned := map[string]string{}
	cat := bundleDoc.ReplaceAllStringFunc(string(files[path]), func(doc string) string {
		m := bundleDoc.FindStringSubmatch(doc)
		version := m[1]
		operator := reg.Ref("etcd-operator:v" + version)
		reg.Push(t, operator, ocitest.Image(t, nil, ocitest.Layer(t, ocitest.Files(map[string]string{"bin/operator": version})...)))
		image := bundleImage(t, doc, version, operator)
		ref := reg.Ref(fmt.Sprintf("etcd-operator-bundle:v%s", version))
		pinned[version] = reg.Push(t, ref, image)
		doc = strings.Replace(doc, "image: "+m[2], "image: "+ref, 1)
		// Drop the manifests: the image is all that is left.
		return regexp.MustCompile(`(?m)^  - type: olm\.bundle\.object\n    value:\n      data: \S+\n`).ReplaceAllString(doc, "")
	})
	if strings.Contains(cat, "olm.bundle.object") || len(pinned) != 4 {
		t.Fatalf("catalog still carries manifests, or %d images pushed", len(pinned))
	}
	files[path] = []byte(cat)

	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--initial-branch=main")
	for name, data := range files {
		p := dir + "/" + name
		os.MkdirAll(p[:strings.LastIndex(p, "/")], 0o755)
		os.WriteFile(p, data, 0o644)
	}
	gittest.Git(t, dir, "add", "--all")
	gittest.Git(t, dir, "commit", "--quiet", "-m", "catalog by image")
	repo, err := gitsource.Open(t.Context(), gitsource.Options{Path: dir})
	if err != nil {
		t.Fatal(err)
	}
	puller, err := oci.New(oci.Options{CacheDir: t.TempDir(), Insecure: true})
	if err != nil {
		t.Fatal(err)
	}
	r, err := New(Options{Repo: repo, Images: puller, Pinner: oci.NewPinner(puller), Version: "test"}).Run(t.Context())
	if err != nil || r.Err() != nil {
		t.Fatal(err, r.Err())
	}
	plan := gittest.Git(t, dir, "show", "main:clusters/staging/plans/etcd-system/etcd/installplan.yaml")
	if !strings.Contains(plan, "image: "+pinned["0.10.0"]) {
		t.Errorf("the plan does not pin the bundle image %s:\n%s", pinned["0.10.0"], plan)
	}
	dep := gittest.Git(t, dir, "show", "main:clusters/staging/plans/etcd-system/etcd/manifests/deployment-etcd-operator.yaml")
	if !strings.Contains(dep, "etcdoperator.v0.10.0") {
		t.Errorf("the deployment was not rendered from the pulled image:\n%s", dep)
	}
	if !regexp.MustCompile(`image: \S+/etcd-operator@sha256:[0-9a-f]{64}`).MatchString(dep) {
		t.Errorf("the operator image is not pinned by digest:\n%s", dep)
	}
}

// bundleImage builds the registry+v1 image of a catalog bundle document
// from its olm.bundle.object properties.
// The CSV runs operator and lists it in spec.relatedImages.
func bundleImage(t *testing.T, doc, version, operator string) v1.Image {
	t.Helper()
	files := map[string]string{
		"metadata/annotations.yaml": "annotations:\n  operators.operatorframework.io.bundle.package.v1: etcd\n  operators.operatorframework.io.bundle.manifests.v1: manifests/\n",
	}
	for i, m := range regexp.MustCompile(`(?m)^      data: (\S+)$`).FindAllStringSubmatch(doc, -1) {
		raw, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			t.Fatal(err)
		}
		obj := string(raw)
		if strings.Contains(obj, `"kind":"ClusterServiceVersion"`) {
			obj = strings.ReplaceAll(obj, "quay.io/olmops-examples/etcd-operator:v"+version, operator)
			obj = strings.Replace(obj, `"spec":{`, `"spec":{"relatedImages":[{"name":"operator","image":"`+operator+`"}],`, 1)
		}
		files[fmt.Sprintf("manifests/%d.json", i)] = obj
	}
	if len(files) < 3 {
		t.Fatalf("bundle %s has no objects", version)
	}
	return ocitest.Image(t, nil, ocitest.Layer(t, ocitest.Files(files)...))
}
