package apply

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/render"
)

// ReadRequest reads the plan folder dir of fsys (see docs/repository.md,
// Plans): installplan.yaml and each hop's manifests, in path order. The
// caller adds what the previous apply left: Installed, Inventory.
// A folder whose files do not match the plan's manifestsDigest (see
// v1alpha1.VerifyManifests) was edited by hand and is refused before any
// manifest is decoded. Errors name the file and line.
func ReadRequest(ctx context.Context, fsys fs.FS, dir string) (Request, *v1alpha1.InstallPlan, error) {
	file := path.Join(dir, v1alpha1.InstallPlanFile)
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return Request{}, nil, fmt.Errorf("read plan: %w", err)
	}
	plan, err := v1alpha1.LoadInstallPlan(file, data)
	if err != nil {
		return Request{}, nil, err
	}
	if err := v1alpha1.VerifyManifests(fsys, dir, plan); err != nil {
		return Request{}, nil, err
	}
	req := Request{Cluster: plan.Spec.Cluster, Namespace: plan.Metadata.Namespace, Subscription: plan.Metadata.Name,
		Package: plan.Spec.Package, ServiceAccount: plan.Spec.Subscription.ServiceAccount}
	if plan.Spec.Subscription.Kind == v1alpha1.KindClusterExtension && req.ServiceAccount == "" {
		// Written before plans recorded the account, or from an intent
		// without one: applying it with the controller's rights would
		// lose the least privilege the ClusterExtension asks for.
		return Request{}, nil, &v1alpha1.Error{Pos: v1alpha1.Pos{File: file, Line: kindLine(data)},
			Msg: "a ClusterExtension's plan must name its service account (spec.subscription.serviceAccount): " +
				"set spec.serviceAccount.name in the ClusterExtension and run olmops plan"}
	}
	if plan.Spec.From != nil {
		req.From = plan.Spec.From.Name
	}
	for _, h := range plan.Spec.Path {
		if err := ctx.Err(); err != nil {
			return Request{}, nil, err
		}
		objs, err := render.ReadFiles(fsys, path.Join(dir, h.Manifests))
		if err != nil {
			return Request{}, nil, fmt.Errorf("hop %s: %w", h.Name, err)
		}
		req.Hops = append(req.Hops, Hop{Bundle: h.Name, Objects: objs})
	}
	if err := req.validate(); err != nil {
		return Request{}, nil, fmt.Errorf("%s: %w", file, err)
	}
	return req, plan, nil
}

// validate checks what Apply relies on, so that a bad request fails before
// anything is written.
func (req *Request) validate() error {
	var errs []error
	if req.Namespace == "" {
		errs = append(errs, errors.New("no namespace"))
	}
	if req.Subscription == "" {
		errs = append(errs, errors.New("no subscription"))
	}
	if len(req.Hops) == 0 {
		errs = append(errs, errors.New("no hops"))
	}
	for i, h := range req.Hops {
		if err := h.validate(); err != nil {
			errs = append(errs, fmt.Errorf("hop %d (%s): %w", i+1, h.Bundle, err))
		}
	}
	return errors.Join(errs...)
}

func (h *Hop) validate() error {
	if h.Bundle == "" {
		return errors.New("no bundle name")
	}
	if len(h.Objects) == 0 {
		return errors.New("no objects")
	}
	seen := map[key]bool{}
	var errs []error
	for i, o := range h.Objects {
		if o == nil || o.GetAPIVersion() == "" || o.GetKind() == "" || o.GetName() == "" {
			errs = append(errs, fmt.Errorf("object %d: apiVersion, kind and metadata.name are required", i+1))
			continue
		}
		k := entryOf(o).key()
		if seen[k] {
			errs = append(errs, fmt.Errorf("%s: listed twice", entryOf(o)))
		}
		seen[k] = true
	}
	return errors.Join(errs...)
}

// kindLine is the line of spec.subscription.kind in a plan file, 0 when it
// cannot tell.
func kindLine(data []byte) int {
	line, inSub := 0, false
	for l := range bytes.Lines(data) {
		line++
		t := bytes.TrimSpace(l)
		switch {
		case bytes.Equal(t, []byte("subscription:")):
			inSub = true
		case inSub && bytes.HasPrefix(t, []byte("kind:")):
			return line
		}
	}
	return 0
}
