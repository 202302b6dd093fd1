package oci

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// ConfigsLabel is the image label naming a catalog image's file-based
// catalog directory, as opm sets it.
const ConfigsLabel = "operators.operatorframework.io.index.configs.v1"

// DefaultConfigsDir is the catalog directory when the label is absent.
const DefaultConfigsDir = "/configs"

// Bundle returns the unpacked registry+v1 bundle image: FS holds its
// manifests/ and metadata/ folders. The image is pulled by digest unless
// the cache has it.
func (p *Puller) Bundle(ctx context.Context, image string) (*Image, error) {
	return p.pull(ctx, image, false)
}

// Catalog returns the file-based catalog of a catalog image: FS is rooted
// at the directory its ConfigsLabel names. Only that directory is unpacked.
func (p *Puller) Catalog(ctx context.Context, image string) (*Image, error) {
	return p.pull(ctx, image, true)
}

// The cache: a bundle's root at <CacheDir>/sha256/<hex>/; a catalog's
// directory at <CacheDir>/catalogs/sha256/<hex>/fs/, with the image path of
// that directory in the file beside it (root), since a cache hit must not
// ask the registry for the label again.
const (
	catalogsDir = "catalogs"
	catalogFS   = "fs"
	catalogRoot = "root"
	stagingDir  = "tmp"
)

func (p *Puller) entryDir(catalog bool, d name.Digest) string {
	algo, hex, _ := strings.Cut(d.DigestStr(), ":")
	if catalog {
		return filepath.Join(p.opts.CacheDir, catalogsDir, algo, hex)
	}
	return filepath.Join(p.opts.CacheDir, algo, hex)
}

func (p *Puller) pull(ctx context.Context, image string, catalog bool) (*Image, error) {
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	start := time.Now()
	ref, err := p.parse(image)
	if err != nil {
		return nil, err
	}
	d, err := p.resolve(ctx, ref)
	if err != nil {
		return nil, imageError(image, err)
	}
	entry := p.entryDir(catalog, d)
	if img, ok := cachedImage(image, d, catalog, entry); ok {
		return img, nil
	}
	err = p.eachCandidate(ctx, d, func(c name.Reference) error {
		return p.fetch(ctx, c, catalog, entry)
	})
	if err != nil {
		if ctx.Err() != nil && reason(err) == nil {
			err = fmt.Errorf("%w: %w", err, ctx.Err())
		}
		return nil, imageError(image, err)
	}
	img, ok := cachedImage(image, d, catalog, entry)
	if !ok {
		return nil, &Error{Image: image, Err: fmt.Errorf("cache entry %s vanished", entry)}
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("pulled image", "image", image, "digest", img.Digest, "duration", time.Since(start))
	return img, nil
}

// cachedImage returns the cache entry for d, if there is one. An entry is
// complete by construction: it appears by rename.
func cachedImage(image string, d name.Digest, catalog bool, entry string) (*Image, bool) {
	if !catalog {
		if fi, err := os.Stat(entry); err == nil && fi.IsDir() {
			return newImage(image, d, "/", entry), true
		}
		return nil, false
	}
	root, err := os.ReadFile(filepath.Join(entry, catalogRoot))
	if err != nil {
		return nil, false
	}
	return newImage(image, d, string(root), filepath.Join(entry, catalogFS)), true
}

// fetch pulls ref and unpacks it into a staging folder, renamed to entry
// once complete. On any failure the staging folder is removed.
func (p *Puller) fetch(ctx context.Context, ref name.Reference, catalog bool, entry string) (err error) {
	img, err := p.image(ctx, ref)
	if err != nil {
		return err
	}
	if err := p.checkSize(img); err != nil {
		return err
	}
	root := "/"
	if catalog {
		if root, err = configsDir(img); err != nil {
			return err
		}
	}
	// Owner only: private images are cached here, and nobody else on the
	// node has reason to read or replace what olmops renders from.
	tmp := filepath.Join(p.opts.CacheDir, stagingDir)
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return fmt.Errorf("image cache: %w", err)
	}
	if err := os.Chmod(p.opts.CacheDir, 0o700); err != nil { // made by an older olmops
		return fmt.Errorf("image cache: %w", err)
	}
	stage, err := os.MkdirTemp(tmp, "pull-")
	if err != nil {
		return fmt.Errorf("image cache: %w", err)
	}
	defer func() {
		if err != nil {
			os.RemoveAll(stage)
		}
	}()
	dst := stage
	if catalog {
		dst = filepath.Join(stage, catalogFS)
		if err := os.Mkdir(dst, 0o700); err != nil {
			return err
		}
	}
	if err := p.unpackImage(ctx, img, dst, strings.TrimPrefix(root, "/"), catalog); err != nil {
		return err
	}
	if catalog {
		if err := os.WriteFile(filepath.Join(stage, catalogRoot), []byte(root), 0o600); err != nil {
			return err
		}
	}
	return commit(stage, entry)
}

// commit renames a complete staging folder into place. Another puller that
// got there first wins; its entry holds the same digest.
func commit(stage, entry string) error {
	if err := os.MkdirAll(filepath.Dir(entry), 0o700); err != nil {
		return fmt.Errorf("image cache: %w", err)
	}
	if err := os.Rename(stage, entry); err != nil {
		if _, serr := os.Stat(entry); serr == nil {
			return os.RemoveAll(stage)
		}
		return fmt.Errorf("image cache: %w", err)
	}
	return nil
}

// image fetches ref's manifest. An index gives its linux/amd64 image, else
// its first: catalogs and bundles hold the same files on every platform.
func (p *Puller) image(ctx context.Context, ref name.Reference) (v1.Image, error) {
	desc, err := p.remote.Get(ctx, ref)
	if err != nil {
		return nil, err
	}
	if !desc.MediaType.IsIndex() {
		return desc.Image()
	}
	idx, err := desc.ImageIndex()
	if err != nil {
		return nil, err
	}
	im, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	var pick *v1.Descriptor
	for i := range im.Manifests {
		m := &im.Manifests[i]
		if !m.MediaType.IsImage() {
			continue
		}
		if pick == nil || (m.Platform != nil && m.Platform.OS == "linux" && m.Platform.Architecture == "amd64") {
			pick = m
		}
	}
	if pick == nil {
		return nil, errors.New("image index holds no image")
	}
	return idx.Image(pick.Digest)
}

// checkSize refuses an image whose compressed layers alone are over the
// limit, before downloading any of them.
func (p *Puller) checkSize(img v1.Image) error {
	m, err := img.Manifest()
	if err != nil {
		return err
	}
	var total int64
	for _, l := range m.Layers {
		total += l.Size
	}
	if total > p.opts.MaxImageBytes {
		return reasonf(ErrTooLarge, "layers are %d bytes, more than the %d allowed", total, p.opts.MaxImageBytes)
	}
	return nil
}

// configsDir reads the catalog directory from the image's label.
func configsDir(img v1.Image) (string, error) {
	cfg, err := img.ConfigFile()
	if err != nil {
		return "", err
	}
	dir := cfg.Config.Labels[ConfigsLabel]
	if dir == "" {
		dir = DefaultConfigsDir
	}
	clean := path.Clean("/" + dir)
	for _, part := range strings.Split(dir, "/") {
		if part == ".." {
			return "", reasonf(ErrNotCatalog, "label %s=%q leaves the image root", ConfigsLabel, dir)
		}
	}
	return clean, nil
}
