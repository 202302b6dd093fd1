package oci

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/remote/transport"
)

// Defaults of Options.
const (
	DefaultMaxImageBytes = 512 << 20
	DefaultMaxFiles      = 10000
)

// Options configure a Puller. The zero value is usable.
type Options struct {
	// CacheDir holds the unpacked images; "" means olmops/images under the
	// user's cache directory.
	CacheDir string
	// Keychain finds credentials for a registry; nil means DefaultKeychain.
	Keychain authn.Keychain
	// Mirrors rewrite repositories before pulling, as an
	// ImageDigestMirrorSet does.
	Mirrors []Mirror
	// MaxImageBytes bounds the uncompressed bytes read from one image's
	// layers; 0 means DefaultMaxImageBytes.
	MaxImageBytes int64
	// MaxFiles bounds the entries unpacked from one image; 0 means
	// DefaultMaxFiles.
	MaxFiles int
	// Timeout bounds each call (Resolve, Bundle, Catalog); 0 means only the
	// caller's context does.
	Timeout time.Duration
	// Transport carries the HTTP requests; nil means remote.DefaultTransport.
	Transport http.RoundTripper
	// Insecure talks plain HTTP to every registry. Loopback and private
	// addresses (127.0.0.1, localhost) use HTTP without it.
	Insecure bool
}

// Mirror redirects the pulls of a source to mirrors, tried in order.
type Mirror struct {
	// Source is a registry (quay.io), a namespace (quay.io/org) or a
	// repository (quay.io/org/etcd); the longest match wins.
	Source string
	// Mirrors replace Source's prefix of the repository, in order.
	Mirrors []string
	// NeverContactSource stops after the mirrors instead of falling back
	// to the source (mirrorSourcePolicy: NeverContactSource).
	NeverContactSource bool
}

// Puller resolves and pulls images, caching them on disk by digest. It is
// safe for concurrent use.
type Puller struct {
	opts    Options
	mirrors []mirror
	remote  *remote.Puller
	nameOpt []name.Option
}

// New returns a Puller. It fails on a mirror that is not a valid registry or
// repository name, or a REGISTRY_AUTH_FILE that cannot be read.
func New(opts Options) (*Puller, error) {
	if opts.MaxImageBytes <= 0 {
		opts.MaxImageBytes = DefaultMaxImageBytes
	}
	if opts.MaxFiles <= 0 {
		opts.MaxFiles = DefaultMaxFiles
	}
	if opts.CacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("image cache: %w", err)
		}
		opts.CacheDir = filepath.Join(dir, "olmops", "images")
	}
	p := &Puller{opts: opts}
	if opts.Insecure {
		p.nameOpt = []name.Option{name.Insecure}
	}
	var err error
	if p.mirrors, err = parseMirrors(opts.Mirrors, p.nameOpt); err != nil {
		return nil, err
	}
	if opts.Keychain == nil {
		if opts.Keychain, err = DefaultKeychain(); err != nil {
			return nil, err
		}
	}
	ropts := []remote.Option{
		remote.WithAuthFromKeychain(opts.Keychain),
		remote.WithUserAgent("olmops"),
		remote.WithRetryPredicate(retryable),
		remote.WithRetryBackoff(remote.Backoff{Duration: 250 * time.Millisecond, Factor: 2, Jitter: 0.1, Steps: 3}),
	}
	if opts.Transport != nil {
		ropts = append(ropts, remote.WithTransport(opts.Transport))
	}
	if p.remote, err = remote.NewPuller(ropts...); err != nil {
		return nil, err
	}
	p.opts = opts
	return p, nil
}

// retryable retries network flakes, but not a request whose context has
// ended: ggcr's default would retry a deadline, which never recovers.
func retryable(err error) bool {
	if err == nil || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return false
	}
	var te *transport.Error
	if errors.As(err, &te) {
		return te.Temporary()
	}
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// withTimeout applies Options.Timeout to one call.
func (p *Puller) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if p.opts.Timeout > 0 {
		return context.WithTimeout(ctx, p.opts.Timeout)
	}
	return context.WithCancel(ctx)
}

// Image is an unpacked image in the cache.
type Image struct {
	// Ref is the reference as the caller gave it.
	Ref string
	// Digest is the digest it was pulled by ("sha256:...").
	Digest string
	// Pinned is the repository at that digest (repo@sha256:...).
	Pinned string
	// Root is the directory of the image that FS and Dir hold: "/" for a
	// bundle, the catalog directory (e.g. "/configs") for a catalog.
	Root string
	// Dir is that directory in the cache.
	Dir string
	// FS reads Dir. The cache holds no link that leaves it.
	FS fs.FS
}

func newImage(ref string, d name.Digest, root, dir string) *Image {
	return &Image{Ref: ref, Digest: d.DigestStr(), Pinned: pinned(d), Root: root, Dir: dir, FS: os.DirFS(dir)}
}
