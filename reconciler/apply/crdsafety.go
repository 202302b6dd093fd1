package apply

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrCRDUnsafe is wrapped by Apply's error when a hop would update a
// CustomResourceDefinition in a way that breaks what the cluster holds;
// nothing of the hop was written.
var ErrCRDUnsafe = errors.New("unsafe CustomResourceDefinition update")

// maxCRDFindings caps the invalid custom resources a refusal lists.
const maxCRDFindings = 5

// checkCRDs refuses the hop, before any of it is written, when one of its
// CRDs would replace a live one and drop a version the API server has
// stored objects in, or make existing custom resources invalid. The
// second is OLM classic's rule: every custom resource of every version
// that stays served must validate against the new schema, or the CRD is
// not updated ("updated validation is too restrictive"); without it, the
// resources can no longer be edited once the CRD is applied.
func (h *hopApply) checkCRDs(ctx context.Context) error {
	var errs []error
	for _, it := range h.items {
		if it.skip || it.live == nil || it.obj.GroupVersionKind().GroupKind() != crdGK {
			continue
		}
		if err := h.checkCRD(ctx, it.obj, it.live); err != nil {
			errs = append(errs, fmt.Errorf("CustomResourceDefinition %s: %w", it.obj.GetName(), err))
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: %w", ErrCRDUnsafe, errors.Join(errs...))
	}
	return nil
}

func (h *hopApply) checkCRD(ctx context.Context, next, live *unstructured.Unstructured) error {
	var nu, old apiextensionsv1.CustomResourceDefinition
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(next.Object, &nu); err != nil {
		return fmt.Errorf("decode: %w", err)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(live.Object, &old); err != nil {
		return fmt.Errorf("decode the live copy: %w", err)
	}
	for _, v := range old.Status.StoredVersions {
		if version(&nu, v) == nil {
			return fmt.Errorf("version %s has objects stored in it (status.storedVersions) and the new CRD drops it", v)
		}
	}
	if err := h.keepsSharedVersions(&old, &nu); err != nil {
		return err
	}
	var findings []string
	for _, ov := range old.Spec.Versions {
		nv := version(&nu, ov.Name)
		if !ov.Served || nv == nil || !nv.Served {
			continue
		}
		f, err := h.invalidResources(ctx, &old, nv)
		if err != nil {
			return err
		}
		findings = append(findings, f...)
	}
	if len(findings) == 0 {
		return nil
	}
	slices.Sort(findings)
	more := ""
	if len(findings) > maxCRDFindings {
		more = fmt.Sprintf(" (and %d more)", len(findings)-maxCRDFindings)
		findings = findings[:maxCRDFindings]
	}
	return fmt.Errorf("updated validation is too restrictive: existing custom resources are not valid against the new schema: %s%s",
		strings.Join(findings, "; "), more)
}

// keepsSharedVersions refuses to stop serving a version that the
// cluster's other plans serve in their copy of the CRD: their operators
// and clients still use it.
func (h *hopApply) keepsSharedVersions(old, nu *apiextensionsv1.CustomResourceDefinition) error {
	shared := h.req.SharedCRDs[old.Name]
	var errs []error
	for _, ov := range old.Spec.Versions {
		nv := version(nu, ov.Name)
		if !ov.Served || nv != nil && nv.Served || len(shared[ov.Name]) == 0 {
			continue
		}
		errs = append(errs, fmt.Errorf("version %s stops being served, and %s still serve it: another operator's CRD needs every served version kept",
			ov.Name, strings.Join(shared[ov.Name], ", ")))
	}
	return errors.Join(errs...)
}

func version(crd *apiextensionsv1.CustomResourceDefinition, name string) *apiextensionsv1.CustomResourceDefinitionVersion {
	i := slices.IndexFunc(crd.Spec.Versions, func(v apiextensionsv1.CustomResourceDefinitionVersion) bool { return v.Name == name })
	if i < 0 {
		return nil
	}
	return &crd.Spec.Versions[i]
}

// invalidResources lists the custom resources of old's kind at version
// nv.Name, as the API server serves them now, and validates each against
// nv's schema as the API server would: structural defaults applied first,
// so that a new required field with a default is no finding.
func (h *hopApply) invalidResources(ctx context.Context, old *apiextensionsv1.CustomResourceDefinition, nv *apiextensionsv1.CustomResourceDefinitionVersion) ([]string, error) {
	if nv.Schema == nil || nv.Schema.OpenAPIV3Schema == nil {
		return nil, nil
	}
	in := &apiextensions.JSONSchemaProps{}
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(nv.Schema.OpenAPIV3Schema, in, nil); err != nil {
		return nil, fmt.Errorf("version %s: schema: %w", nv.Name, err)
	}
	validator, _, err := validation.NewSchemaValidator(in)
	if err != nil {
		return nil, fmt.Errorf("version %s: schema: %w", nv.Name, err)
	}
	structural, err := structuralschema.NewStructural(in)
	if err != nil {
		structural = nil // not structural: the API server refuses the CRD itself
	}
	var findings []string
	list := &unstructured.UnstructuredList{}
	list.SetGroupVersionKind(schema.GroupVersionKind{Group: old.Spec.Group, Version: nv.Name, Kind: old.Spec.Names.Kind + "List"})
	opts := &client.ListOptions{Limit: 500}
	for {
		err := h.a.Client.List(ctx, list, opts)
		if meta.IsNoMatchError(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("list %s %s: %w", old.Spec.Names.Kind, nv.Name, err)
		}
		for i := range list.Items {
			if msg := invalid(&list.Items[i], validator, structural); msg != "" {
				findings = append(findings, fmt.Sprintf("%s (%s): %s", entryOf(&list.Items[i]), nv.Name, msg))
			}
		}
		if opts.Continue = list.GetContinue(); opts.Continue == "" {
			return findings, nil
		}
	}
}

// invalid validates one custom resource and says why it fails, "" when
// it passes.
func invalid(cr *unstructured.Unstructured, validator validation.SchemaValidator, structural *structuralschema.Structural) string {
	obj := runtime.DeepCopyJSON(cr.Object)
	if structural != nil {
		defaulting.Default(obj, structural)
	}
	errs := validation.ValidateCustomResource(field.NewPath(""), obj, validator)
	if len(errs) == 0 {
		return ""
	}
	msgs := make([]string, len(errs))
	for i, e := range errs {
		// The root path prints as "[]" or "": drop it.
		msgs[i] = strings.TrimPrefix(strings.TrimPrefix(e.Error(), "[]"), ".")
	}
	return strings.Join(msgs, ", ")
}
