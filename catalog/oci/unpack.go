package oci

import (
	"archive/tar"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// unpackImage unpacks img's layers, bottom first, into dst: the whole image
// for a bundle, the directory prefix for a catalog.
func (p *Puller) unpackImage(ctx context.Context, img v1.Image, dst, prefix string, catalog bool) error {
	root, err := os.OpenRoot(dst)
	if err != nil {
		return err
	}
	defer root.Close()
	u := newUnpacker(root, prefix, p.opts.MaxImageBytes, p.opts.MaxFiles)
	layers, err := img.Layers()
	if err != nil {
		return err
	}
	for i, l := range layers {
		if err := u.unpackLayer(ctx, l); err != nil {
			return fmt.Errorf("layer %d: %w", i, err)
		}
	}
	if catalog && !u.sawRoot {
		return reasonf(ErrNotCatalog, "no /%s folder", prefix)
	}
	if !catalog && u.kinds["manifests"] != kindDir {
		return reasonf(ErrNotBundle, "no manifests/ folder")
	}
	return nil
}

func (u *unpacker) unpackLayer(ctx context.Context, l v1.Layer) error {
	rc, err := l.Uncompressed()
	if err != nil {
		return err
	}
	defer rc.Close()
	if err := u.layer(ctx, rc); err != nil {
		return err
	}
	// Read to the end: the registry's bytes are verified against the
	// layer digest only at EOF.
	_, err = io.Copy(io.Discard, u.limit(rc))
	return err
}

// limitReader fails once more than the image's byte budget was read.
type limitReader struct {
	r    io.Reader
	left *int64
	max  int64
}

func (u *unpacker) limit(r io.Reader) io.Reader {
	return &limitReader{r: r, left: &u.bytesLeft, max: u.maxBytes}
}

func (l *limitReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	*l.left -= int64(n)
	if *l.left < 0 {
		return n, reasonf(ErrTooLarge, "more than %d bytes uncompressed", l.max)
	}
	return n, err
}

// layer applies one layer's tar stream.
func (u *unpacker) layer(ctx context.Context, r io.Reader) error {
	u.current = map[string]bool{}
	tr := tar.NewReader(u.limit(r))
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if err := u.entry(hdr, tr); err != nil {
			return err
		}
	}
}
