package apply

import (
	"context"
	"fmt"
	"slices"

	"github.com/go-logr/logr"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/reconciler/certs"
)

// item is one object of a hop: the manifest as sent and its live copy.
type item struct {
	obj  *unstructured.Unstructured
	live *unstructured.Unstructured
	skip bool
}

// hopApply is one hop's apply in progress.
type hopApply struct {
	*run
	items []*item
	// provided are the kinds the hop's CRDs define: their objects wait for
	// the CRDs and are not dry-run against the schema the hop replaces.
	provided map[schema.GroupKind]bool
	// creates are the namespaces the hop itself creates.
	creates map[string]bool
}

// applyHop applies one hop's objects stage by stage and returns their live
// copies. Nothing is written when the dry run refuses an object.
func (r *run) applyHop(ctx context.Context, hop Hop) ([]*unstructured.Unstructured, error) {
	// Serving certificates join the hop before anything is read, so that
	// their Secrets are applied before the Deployments mounting them.
	objs, err := r.a.issuer().Prepare(ctx, r.req.Namespace, hop.Objects)
	if err != nil {
		return nil, err
	}
	h := &hopApply{run: r, provided: providedKinds(objs), creates: map[string]bool{}}
	for _, m := range objs {
		obj, err := prepare(m)
		if err != nil {
			return nil, err
		}
		if obj.GroupVersionKind().GroupKind() == namespaceGK {
			h.creates[obj.GetName()] = true
		}
		h.items = append(h.items, &item{obj: obj})
	}
	slices.SortStableFunc(h.items, func(a, b *item) int { return compareByStage(a.obj, b.obj) })
	if err := h.readLive(ctx); err != nil {
		return nil, err
	}
	// When every object is unchanged, the namespace they live in exists,
	// and the hop Apply resumes at has nothing to report.
	changed := slices.ContainsFunc(h.items, func(it *item) bool { return !it.skip })
	if changed {
		if err := h.preflight(ctx); err != nil {
			return nil, err
		}
		if err := r.ensureNamespace(ctx); err != nil {
			return nil, err
		}
	}
	if err := h.checkCRDs(ctx); err != nil {
		return nil, err
	}
	if err := h.dryRun(ctx); err != nil {
		return nil, h.denied(err)
	}
	// Announced once the API server took the dry run: an API server out
	// of reach fails the pass before anyone hears of an apply.
	if changed || hop.Bundle != r.res.Installed {
		r.announce()
	}
	if err := h.send(ctx); err != nil {
		return nil, err
	}
	live := make([]*unstructured.Unstructured, len(h.items))
	for i, it := range h.items {
		live[i] = it.live
	}
	return live, nil
}

func (a *Applier) issuer() *certs.Issuer {
	return &certs.Issuer{Reader: a.Reader, Direct: a.Client, Now: a.Now, Validity: a.CertValidity}
}

// place puts a namespaced object without a namespace in the install
// namespace; it fails with a no-match error for a kind not yet served.
func (h *hopApply) place(obj *unstructured.Unstructured) error {
	if obj.GetNamespace() != "" {
		return nil
	}
	namespaced, err := h.a.Client.IsObjectNamespaced(obj)
	if err != nil {
		return err
	}
	if namespaced {
		obj.SetNamespace(h.req.Namespace)
	}
	return nil
}

// readLive reads each object and marks those olmops left unchanged.
func (h *hopApply) readLive(ctx context.Context) error {
	for _, it := range h.items {
		if err := h.place(it.obj); err != nil {
			if meta.IsNoMatchError(err) {
				continue // a kind to come: nothing to read yet
			}
			return fmt.Errorf("%s: %w", entryOf(it.obj), err)
		}
		live := &unstructured.Unstructured{}
		live.SetGroupVersionKind(it.obj.GroupVersionKind())
		err := h.a.Reader.Get(ctx, client.ObjectKeyFromObject(it.obj), live)
		switch {
		case apierrors.IsNotFound(err) || meta.IsNoMatchError(err):
			continue
		case err != nil:
			return fmt.Errorf("read %s: %w", entryOf(it.obj), err)
		}
		it.live = live
		if prev, ok := h.previous(it.obj); ok && unchanged(it.obj, live, prev) {
			it.skip = true
		}
	}
	return nil
}

func (h *hopApply) previous(obj *unstructured.Unstructured) (Entry, bool) {
	inv := h.res.Inventory
	i, ok := slices.BinarySearchFunc(inv, entryOf(obj), compareEntries)
	if !ok {
		return Entry{}, false
	}
	return inv[i], true
}

// dryRun sends every object that will be applied with dryRun=All, so that
// the API server validates and admits the whole hop before any of it is
// written. Objects of kinds the hop's CRDs define, and objects in
// namespaces the hop creates, are checked when they are applied.
func (h *hopApply) dryRun(ctx context.Context) error {
	for _, it := range h.items {
		if it.skip || h.provided[it.obj.GroupVersionKind().GroupKind()] || h.creates[it.obj.GetNamespace()] {
			continue
		}
		if err := h.place(it.obj); err != nil {
			return fmt.Errorf("%s: %w", entryOf(it.obj), err)
		}
		if _, err := h.apply(ctx, it.obj, client.DryRunAll); err != nil {
			return err
		}
	}
	return nil
}

// send applies the objects stage by stage. What it wrote enters the
// inventory even when a later object fails, so that nothing is left
// untracked.
func (h *hopApply) send(ctx context.Context) error {
	log := logr.FromContextOrDiscard(ctx)
	var written []Entry
	defer func() { h.res.Inventory = h.res.Inventory.merge(written) }()
	var crds []*unstructured.Unstructured
	for i, it := range h.items {
		if it.skip {
			h.res.Skipped++
		} else {
			live, err := h.applyServed(ctx, it.obj)
			if err != nil {
				return err
			}
			it.live = live
			e := entryOf(live)
			e.Digest = liveDigest(live)
			written = append(written, e)
			h.res.Applied++
			log.V(2).Info("applied object", "object", e.String())
		}
		if objStage(it.obj) != stageCRDs {
			continue
		}
		crds = append(crds, it.live)
		if i+1 == len(h.items) || objStage(h.items[i+1].obj) != stageCRDs {
			if err := h.established(ctx, crds); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyServed applies obj, waiting up to EstablishTimeout while a kind
// the hop's CRDs define is not yet served.
func (h *hopApply) applyServed(ctx context.Context, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if !h.provided[obj.GroupVersionKind().GroupKind()] {
		return h.apply(ctx, obj)
	}
	var live *unstructured.Unstructured
	var lastErr error
	timedOut, err := poll(ctx, h.a.PollInterval, h.a.EstablishTimeout, func(ctx context.Context) (bool, error) {
		if lastErr = h.place(obj); lastErr == nil {
			live, lastErr = h.apply(ctx, obj)
		}
		if meta.IsNoMatchError(lastErr) {
			return false, nil
		}
		return true, lastErr
	})
	if timedOut {
		return nil, fmt.Errorf("%s: kind not served %s after its CRD: %w", entryOf(obj), h.a.EstablishTimeout, lastErr)
	}
	return live, err
}

// apply sends obj with server-side apply and returns the object the API
// server holds (or would hold, in a dry run).
func (h *hopApply) apply(ctx context.Context, obj *unstructured.Unstructured, opts ...client.ApplyOption) (*unstructured.Unstructured, error) {
	out := obj.DeepCopy()
	opts = append(opts, client.FieldOwner(h.a.FieldOwner), client.ForceOwnership)
	if err := h.a.writer.Apply(ctx, client.ApplyConfigurationFromUnstructured(out), opts...); err != nil {
		return nil, &objectError{obj: entryOf(obj), err: err}
	}
	return out, nil
}
