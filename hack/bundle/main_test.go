package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/yaml"
)

func TestBuildPinsImage(t *testing.T) {
	for _, tt := range []struct{ image, want string }{
		{"ghcr.io/olmops/olmops:v1.2.3", "ghcr.io/olmops/olmops:v1.2.3"},
		{"registry.local:5000/olmops@sha256:" + strings.Repeat("a", 64), "registry.local:5000/olmops@sha256:" + strings.Repeat("a", 64)},
	} {
		out, err := build(filepath.Join("..", "..", "config", "default"), tt.image)
		if err != nil {
			t.Fatal(err)
		}
		var kinds []string
		var images []string
		dec := yaml.NewYAMLOrJSONDecoder(bytes.NewReader(out), 4096)
		for {
			u := &unstructured.Unstructured{}
			if err := dec.Decode(&u.Object); err != nil {
				break
			}
			kinds = append(kinds, u.GetKind())
			if u.GetKind() != "Deployment" {
				continue
			}
			cs, _, _ := unstructured.NestedSlice(u.Object, "spec", "template", "spec", "containers")
			for _, c := range cs {
				images = append(images, c.(map[string]any)["image"].(string))
			}
		}
		if len(images) != 1 || images[0] != tt.want {
			t.Errorf("image %s: the Deployment runs %v", tt.image, images)
		}
		for _, k := range []string{"CustomResourceDefinition", "ClusterRole", "Namespace", "Deployment"} {
			if !strings.Contains(strings.Join(kinds, " "), k) {
				t.Errorf("the bundle has no %s: %v", k, kinds)
			}
		}
	}
}
