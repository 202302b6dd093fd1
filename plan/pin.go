package plan

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/render"
)

// ImagePinner resolves an image reference to the same image by digest.
type ImagePinner interface {
	Pin(ctx context.Context, image string) (string, error)
}

// pinRelatedImages rewrites the container images of a pulled bundle's
// deployments that its CSV lists in spec.relatedImages to their digests,
// so the plan says exactly what will run. Images already by digest, and
// images the CSV does not list, stay as written.
func pinRelatedImages(ctx context.Context, p ImagePinner, b *render.Bundle) error {
	csv := b.CSVObject
	if csv == nil {
		return nil
	}
	related := map[string]bool{}
	list, _, _ := unstructured.NestedSlice(csv.Object, "spec", "relatedImages")
	for _, ri := range list {
		if m, ok := ri.(map[string]any); ok {
			if img, ok := m["image"].(string); ok && !strings.Contains(img, "@") {
				related[img] = true
			}
		}
	}
	if len(related) == 0 {
		return nil
	}
	deps, _, _ := unstructured.NestedSlice(csv.Object, "spec", "install", "spec", "deployments")
	for _, d := range deps {
		dm, ok := d.(map[string]any)
		if !ok {
			continue
		}
		for _, field := range []string{"containers", "initContainers"} {
			cs, _, _ := unstructured.NestedSlice(dm, "spec", "template", "spec", field)
			for _, c := range cs {
				cm, ok := c.(map[string]any)
				img, _ := cm["image"].(string)
				if !ok || !related[img] {
					continue
				}
				pinned, err := p.Pin(ctx, img)
				if err != nil {
					return fmt.Errorf("pin related image %s: %w", img, err)
				}
				cm["image"] = pinned
			}
			if len(cs) > 0 {
				if err := unstructured.SetNestedSlice(dm, cs, "spec", "template", "spec", field); err != nil {
					return err
				}
			}
		}
	}
	return unstructured.SetNestedSlice(csv.Object, deps, "spec", "install", "spec", "deployments")
}
