package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
)

// ErrNoManifests is wrapped by FromCatalog and FromDir when a bundle carries
// no manifests at all; the caller then pulls the bundle image instead.
var ErrNoManifests = errors.New("bundle carries no manifests")

// Bundle is a registry+v1 bundle: one ClusterServiceVersion and the other
// manifests it ships.
type Bundle struct {
	// Name is the bundle's name in its catalog (usually the CSV name).
	Name string
	// Package is the package the bundle belongs to; "" when unknown.
	Package string
	// Version is the bundle's version as its catalog or CSV states it.
	Version string
	// CSV is the typed ClusterServiceVersion.
	CSV *operatorsv1alpha1.ClusterServiceVersion
	// CSVObject is the same CSV as written. Render takes the deployment
	// specs and permission rules from it, so that fields the typed API does
	// not know survive; when nil, Render derives it from CSV.
	CSVObject *unstructured.Unstructured
	// Objects are the bundle's other manifests (CRDs, Services, ConfigMaps,
	// ...) in the order the bundle lists them.
	Objects []*unstructured.Unstructured
	// Annotations are metadata/annotations.yaml's annotations; nil when the
	// bundle has none.
	Annotations map[string]string
}

// csvKind is the kind that makes a manifest the bundle's CSV.
const csvKind = "ClusterServiceVersion"

// FromCatalog builds a Bundle from the olm.bundle.object properties of a
// catalog bundle. Exactly one of them must be a ClusterServiceVersion. A
// bundle without olm.bundle.object properties gives an error wrapping
// ErrNoManifests.
func FromCatalog(b *catalog.Bundle) (*Bundle, error) {
	if b == nil {
		return nil, errors.New("render: nil catalog bundle")
	}
	if len(b.Props.BundleObjects) == 0 {
		return nil, fmt.Errorf("%s: bundle %s: %w", b.Pos, b.Name, ErrNoManifests)
	}
	out := &Bundle{Name: b.Name, Version: catalogVersion(b)}
	if b.Package != nil {
		out.Package = b.Package.Name
	}
	var csvPos property.Pos
	for _, i := range b.Props.BundleObjects {
		p := b.Properties[i]
		o, err := decodeBundleObject(p)
		if err != nil {
			return nil, fmt.Errorf("bundle %s: %w", b.Name, err)
		}
		if o.GetKind() != csvKind {
			out.Objects = append(out.Objects, o)
			continue
		}
		if out.CSVObject != nil {
			return nil, fmt.Errorf("%s: bundle %s: a second ClusterServiceVersion (the first is at %s)", p.Pos, b.Name, csvPos)
		}
		out.CSVObject, csvPos = o, p.Pos
	}
	if out.CSVObject == nil {
		return nil, fmt.Errorf("%s: bundle %s: no olm.bundle.object is a ClusterServiceVersion", b.Pos, b.Name)
	}
	csv, err := typedCSV(out.CSVObject)
	if err != nil {
		return nil, fmt.Errorf("%s: bundle %s: %w", csvPos, b.Name, err)
	}
	out.CSV = csv
	if out.Version == "" {
		out.Version = csv.Spec.Version.String()
	}
	return out, nil
}

func catalogVersion(b *catalog.Bundle) string {
	if b.Version != nil {
		return b.Version.String()
	}
	if len(b.Props.Packages) > 0 {
		return b.Props.Packages[0].Version
	}
	return ""
}

func decodeBundleObject(p property.Property) (*unstructured.Unstructured, error) {
	data, err := property.DecodeBundleObject(p.Value)
	if err != nil {
		return nil, fmt.Errorf("%s: olm.bundle.object: %w", p.Pos, err)
	}
	// The name only chooses the decoder: opm writes JSON, people YAML.
	name := "data"
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		name = "data.json"
	}
	objs, err := decodeFile(name, data, false)
	if err != nil {
		return nil, fmt.Errorf("%s: olm.bundle.object: %w", p.Pos, err)
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("%s: olm.bundle.object holds %d objects, want 1", p.Pos, len(objs))
	}
	return objs[0].obj, nil
}

// typedCSV decodes a CSV manifest into the typed API.
func typedCSV(o *unstructured.Unstructured) (*operatorsv1alpha1.ClusterServiceVersion, error) {
	j, err := json.Marshal(o.Object)
	if err != nil {
		return nil, err
	}
	var csv operatorsv1alpha1.ClusterServiceVersion
	if err := json.Unmarshal(j, &csv); err != nil {
		return nil, fmt.Errorf("ClusterServiceVersion %s: %w", o.GetName(), err)
	}
	return &csv, nil
}

// csvObject is the CSV as written, or derived from the typed CSV for a
// Bundle built by hand.
func (b *Bundle) csvObject() (*unstructured.Unstructured, error) {
	if b.CSVObject != nil {
		return b.CSVObject, nil
	}
	j, err := json.Marshal(b.CSV)
	if err != nil {
		return nil, err
	}
	o := &unstructured.Unstructured{}
	if err := o.UnmarshalJSON(j); err != nil {
		return nil, err
	}
	return o, nil
}
