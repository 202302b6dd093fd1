package plan

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"sync"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/render"
)

// ImageSource pulls bundle images: the image reference pinned by digest,
// and the image's files (manifests/, metadata/).
type ImageSource interface {
	BundleImage(ctx context.Context, image string) (pinned string, files fs.FS, err error)
}

// Sources finds a bundle's manifests where a person would look first: the
// repository's bundle folder of the catalog (<bundlesPath>/<bundle>/), the
// catalog's olm.bundle.object properties, then the bundle image. A bundle
// is read once per Sources, however many clusters install it. Safe for
// concurrent use.
type Sources struct {
	// Repo is the repository's tree.
	Repo fs.FS
	// BundlesPaths maps catalog names to their bundle folders in Repo.
	BundlesPaths map[string]string
	// Images pulls bundle images; nil means a bundle found nowhere else
	// is an error.
	Images ImageSource
	// Pinner, when set, pins the related images of bundles pulled from
	// images to their digests in the rendered deployments.
	Pinner ImagePinner

	mu    sync.Mutex
	cache map[*catalog.Bundle]*sourced
}

type sourced struct {
	once   sync.Once
	bundle *render.Bundle
	image  string
	err    error
}

// Bundle implements BundleSource.
func (s *Sources) Bundle(ctx context.Context, cat *catalog.Catalog, b *catalog.Bundle) (*render.Bundle, string, error) {
	s.mu.Lock()
	if s.cache == nil {
		s.cache = map[*catalog.Bundle]*sourced{}
	}
	e := s.cache[b]
	if e == nil {
		e = &sourced{}
		s.cache[b] = e
	}
	s.mu.Unlock()
	e.once.Do(func() { e.bundle, e.image, e.err = s.find(ctx, cat, b) })
	return e.bundle, e.image, e.err
}

func (s *Sources) find(ctx context.Context, cat *catalog.Catalog, b *catalog.Bundle) (*render.Bundle, string, error) {
	if dir, ok := s.BundlesPaths[cat.Name]; ok && dir != "" && s.Repo != nil {
		bdir := path.Join(dir, b.Name)
		if _, err := fs.Stat(s.Repo, path.Join(bdir, "manifests")); err == nil {
			rb, err := render.FromDir(s.Repo, bdir)
			return withPackage(rb, b), "", err
		}
	}
	rb, err := render.FromCatalog(b)
	if !errors.Is(err, render.ErrNoManifests) {
		return withPackage(rb, b), "", err
	}
	if b.Image == "" {
		return nil, "", fmt.Errorf("%s: bundle %s has no manifests in the repository or the catalog, and no image", b.Pos, b.Name)
	}
	if s.Images == nil {
		return nil, "", fmt.Errorf("%s: bundle %s has no manifests in the repository or the catalog; its image %s is not pulled (no image source)", b.Pos, b.Name, b.Image)
	}
	pinned, files, err := s.Images.BundleImage(ctx, b.Image)
	if err != nil {
		return nil, "", fmt.Errorf("bundle %s: %w", b.Name, err)
	}
	rb, err = render.FromDir(files, ".")
	if err != nil {
		return nil, "", fmt.Errorf("bundle %s from image %s: %w", b.Name, pinned, err)
	}
	if s.Pinner != nil {
		if err := pinRelatedImages(ctx, s.Pinner, rb); err != nil {
			return nil, "", fmt.Errorf("bundle %s: %w", b.Name, err)
		}
	}
	return withPackage(rb, b), pinned, nil
}

// withPackage names the package and version from the catalog, which is
// authoritative over the bundle's own metadata.
func withPackage(rb *render.Bundle, b *catalog.Bundle) *render.Bundle {
	if rb == nil {
		return nil
	}
	rb.Package = b.Package.Name
	if rb.Name == "" {
		rb.Name = b.Name
	}
	if b.Version != nil {
		rb.Version = b.Version.Original()
	}
	return rb
}
