package kubetest

import (
	"context"
	"testing"

	"sigs.k8s.io/controller-runtime/pkg/cache"
)

// Cache starts an informer cache on the control plane, as a manager would
// give its reconcilers, and stops it when the test ends. opts.Scheme
// defaults to the Env's.
func (e *Env) Cache(t testing.TB, opts cache.Options) cache.Cache {
	t.Helper()
	if opts.Scheme == nil {
		opts.Scheme = e.Scheme
	}
	c, err := cache.New(e.Config, opts)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := c.Start(ctx); err != nil {
			t.Error(err)
		}
	}()
	t.Cleanup(func() { cancel(); <-done })
	if !c.WaitForCacheSync(ctx) {
		t.Fatal("the cache did not start")
	}
	return c
}
