package ocitest

import (
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Registry is a registry serving on 127.0.0.1 until the test ends.
type Registry struct {
	// Host is the registry's address, 127.0.0.1:port.
	Host     string
	srv      *httptest.Server
	requests atomic.Int64
	user     string
	pass     string
}

// Option configures a Registry.
type Option func(*Registry, *[]func(http.Handler) http.Handler)

// WithBasicAuth makes every request need these credentials (Push sends
// them); others get 401 with a Basic challenge.
func WithBasicAuth(user, pass string) Option {
	return func(r *Registry, wraps *[]func(http.Handler) http.Handler) {
		r.user, r.pass = user, pass
		*wraps = append(*wraps, func(next http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				u, p, ok := req.BasicAuth()
				if !ok || u != user || p != pass {
					w.Header().Set("WWW-Authenticate", `Basic realm="ocitest"`)
					http.Error(w, `{"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]}`, http.StatusUnauthorized)
					return
				}
				next.ServeHTTP(w, req)
			})
		})
	}
}

// WithMiddleware wraps the registry's handler, e.g. to stall some requests.
func WithMiddleware(wrap func(http.Handler) http.Handler) Option {
	return func(_ *Registry, wraps *[]func(http.Handler) http.Handler) {
		*wraps = append(*wraps, wrap)
	}
}

// NewRegistry starts a registry, stopped when the test ends.
func NewRegistry(t testing.TB, opts ...Option) *Registry {
	t.Helper()
	r := &Registry{}
	var wraps []func(http.Handler) http.Handler
	for _, o := range opts {
		o(r, &wraps)
	}
	var h http.Handler = registry.New(registry.Logger(log.New(io.Discard, "", 0)))
	for _, w := range wraps {
		h = w(h)
	}
	counted := http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.requests.Add(1)
		h.ServeHTTP(w, req)
	})
	r.srv = httptest.NewServer(counted)
	r.Host = strings.TrimPrefix(r.srv.URL, "http://")
	t.Cleanup(r.Close)
	return r
}

// Close stops the registry: later requests find nothing listening.
func (r *Registry) Close() {
	r.srv.CloseClientConnections()
	r.srv.Close()
}

// Requests counts the HTTP requests served so far.
func (r *Registry) Requests() int64 { return r.requests.Load() }

// Ref returns the reference of repo (with its tag or digest) on this
// registry.
func (r *Registry) Ref(repo string) string { return r.Host + "/" + repo }

// Push pushes img as ref (host/repo:tag) and returns it by digest.
func (r *Registry) Push(t testing.TB, ref string, img v1.Image) string {
	t.Helper()
	tag, err := name.NewTag(ref)
	if err != nil {
		t.Fatal(err)
	}
	opts := []remote.Option{remote.WithContext(t.Context())}
	if r.user != "" {
		opts = append(opts, remote.WithAuth(&authn.Basic{Username: r.user, Password: r.pass}))
	}
	if err := remote.Write(tag, img, opts...); err != nil {
		t.Fatalf("push %s: %v", ref, err)
	}
	d, err := img.Digest()
	if err != nil {
		t.Fatal(err)
	}
	return tag.Context().Digest(d.String()).String()
}
