package oci

import (
	"context"
	"errors"
	"sync"

	"github.com/olmops/olmops/catalog/fbc"
)

// pinWorkers bounds the lookups a Pinner runs at once.
const pinWorkers = 8

// Pinner turns image references into digest references (repo@sha256:...),
// asking its Resolver once per reference: a run pins every image at one
// moment, and a tag that moves during the run does not split it. Only
// answers are kept: a failed lookup (a registry down, a tag not pushed
// yet, a cancelled run) is shared by the calls waiting on it and asked
// again by the next one, since the controller keeps one Pinner for its
// lifetime and a kept failure would hold a plan until it restarts.
type Pinner struct {
	r    Resolver
	mu   sync.Mutex
	memo map[string]*pinResult
}

type pinResult struct {
	once   sync.Once
	pinned string
	err    error
}

// NewPinner returns a Pinner that resolves through r (usually a *Puller).
func NewPinner(r Resolver) *Pinner {
	return &Pinner{r: r, memo: map[string]*pinResult{}}
}

// Pin returns image by digest. A reference that already has a digest is
// returned in the same form without a lookup.
func (p *Pinner) Pin(ctx context.Context, image string) (string, error) {
	p.mu.Lock()
	res := p.memo[image]
	if res == nil {
		res = &pinResult{}
		p.memo[image] = res
	}
	p.mu.Unlock()
	res.once.Do(func() {
		d, err := p.r.Resolve(ctx, image)
		if err != nil {
			res.err = err
			p.mu.Lock()
			if p.memo[image] == res {
				delete(p.memo, image)
			}
			p.mu.Unlock()
			return
		}
		res.pinned = pinned(d)
	})
	return res.pinned, res.err
}

// PinRelatedImages returns images with every Image pinned, in the same
// order, as a plan records a CSV's relatedImages. Lookups run in parallel;
// the error lists every image that could not be pinned.
func (p *Pinner) PinRelatedImages(ctx context.Context, images []fbc.RelatedImage) ([]fbc.RelatedImage, error) {
	out := make([]fbc.RelatedImage, len(images))
	errs := make([]error, len(images))
	sem := make(chan struct{}, pinWorkers)
	var wg sync.WaitGroup
	for i, img := range images {
		out[i] = img
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i].Image, errs[i] = p.Pin(ctx, img.Image)
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
