package oci

import (
	"context"
	"fmt"
	"strings"

	"github.com/go-logr/logr"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
)

// Resolver turns an image reference into a digest reference. *Puller is one.
type Resolver interface {
	Resolve(ctx context.Context, image string) (name.Digest, error)
}

var _ Resolver = (*Puller)(nil)

// Resolve returns the digest image points to. A digest reference is
// returned as it is, without network; a tag is looked up on its mirrors,
// then its registry.
func (p *Puller) Resolve(ctx context.Context, image string) (name.Digest, error) {
	ctx, cancel := p.withTimeout(ctx)
	defer cancel()
	ref, err := p.parse(image)
	if err != nil {
		return name.Digest{}, err
	}
	d, err := p.resolve(ctx, ref)
	if err != nil {
		return name.Digest{}, imageError(image, err)
	}
	return d, nil
}

func (p *Puller) parse(image string) (name.Reference, error) {
	ref, err := name.ParseReference(image, p.nameOpt...)
	if err != nil {
		return nil, &Error{Image: image, Err: fmt.Errorf("invalid reference: %w", err)}
	}
	return ref, nil
}

func (p *Puller) resolve(ctx context.Context, ref name.Reference) (name.Digest, error) {
	if d, ok := ref.(name.Digest); ok {
		return d, nil
	}
	var digest string
	err := p.eachCandidate(ctx, ref, func(c name.Reference) error {
		desc, err := p.remote.Head(ctx, c)
		if err != nil && reason(err) == nil {
			// Some registries answer HEAD badly; GET says why.
			var d *remote.Descriptor
			if d, err = p.remote.Get(ctx, c); err == nil {
				desc = &d.Descriptor
			}
		}
		if err != nil {
			return err
		}
		digest = desc.Digest.String()
		return nil
	})
	if err != nil {
		return name.Digest{}, err
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("resolved image", "image", ref.String(), "digest", digest)
	return ref.Context().Digest(digest), nil
}

// eachCandidate calls try on the places ref can be fetched from until one
// succeeds. A failure that lies in the image itself stops the search: every
// mirror serves the same bytes for a digest.
func (p *Puller) eachCandidate(ctx context.Context, ref name.Reference, try func(name.Reference) error) error {
	cands, err := p.candidates(ref)
	if err != nil {
		return err
	}
	var errs []error
	for _, c := range cands {
		err := try(c)
		if err == nil {
			return nil
		}
		if len(cands) > 1 {
			logr.FromContextOrDiscard(ctx).V(1).Info("image source failed", "source", c.String(), "error", err.Error())
		}
		if contentError(err) || ctx.Err() != nil {
			return err
		}
		errs = append(errs, candidateError{ref: c, err: err})
	}
	if len(errs) == 1 {
		return errs[0].(candidateError).err
	}
	return candidatesError(errs)
}

// candidateError is the failure of one mirror or of the source.
type candidateError struct {
	ref name.Reference
	err error
}

func (e candidateError) Error() string { return e.ref.String() + ": " + e.err.Error() }
func (e candidateError) Unwrap() error { return e.err }

// candidatesError lists every source tried on one line. Its reason is that
// of the last source, the one of last resort.
type candidatesError []error

func (e candidatesError) Error() string {
	parts := make([]string, len(e))
	for i, err := range e {
		parts[i] = err.Error()
	}
	return "tried " + strings.Join(parts, "; ")
}

func (e candidatesError) Unwrap() error { return e[len(e)-1] }
