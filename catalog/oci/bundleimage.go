package oci

import (
	"context"
	"io/fs"
)

// BundleImage pulls a bundle image for rendering: the image pinned by
// digest, and its files (manifests/, metadata/). It makes a Puller the
// image source of package plan.
func (p *Puller) BundleImage(ctx context.Context, image string) (string, fs.FS, error) {
	img, err := p.Bundle(ctx, image)
	if err != nil {
		return "", nil, err
	}
	return img.Pinned, img.FS, nil
}
