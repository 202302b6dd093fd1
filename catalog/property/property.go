package property

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Property types olmops understands.
const (
	TypePackage             = "olm.package"
	TypeGVK                 = "olm.gvk"
	TypePackageRequired     = "olm.package.required"
	TypeGVKRequired         = "olm.gvk.required"
	TypeConstraint          = "olm.constraint"
	TypeMaxOpenShiftVersion = "olm.maxOpenShiftVersion"
	TypeBundleObject        = "olm.bundle.object"
	TypeCSVMetadata         = "olm.csv.metadata"
	TypeDeprecated          = "olm.deprecated"
	TypeKubeVersion         = "olm.kubeversion"
	TypeChannel             = "olm.channel"
)

// MaxConstraintSize is the largest raw olm.constraint value OLM accepts.
const MaxConstraintSize = 64 << 10

// Property is one entry of an object's properties list.
type Property struct {
	Pos   Pos
	Type  string
	Value Value
}

// MarshalJSON writes the property the way it appears in a catalog.
func (p Property) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Type  string `json:"type"`
		Value Value  `json:"value"`
	}{p.Type, p.Value})
}

// Package is an olm.package property: which package a bundle belongs to and
// its version.
type Package struct {
	PackageName string `json:"packageName"`
	Version     string `json:"version"`
	Release     string `json:"release,omitempty"`
}

// GVK is an olm.gvk (provided) or olm.gvk.required property.
type GVK struct {
	Group   string `json:"group"`
	Kind    string `json:"kind"`
	Version string `json:"version"`
}

func (g GVK) String() string { return fmt.Sprintf("%s/%s/%s", g.Group, g.Version, g.Kind) }

// PackageRequired is an olm.package.required property.
type PackageRequired struct {
	PackageName  string `json:"packageName"`
	VersionRange string `json:"versionRange"`
}

// KubeVersion is an olm.kubeversion property: the lowest Kubernetes version
// the bundle runs on.
type KubeVersion struct {
	Version string `json:"version"`
}

// Constraint is an olm.constraint property: exactly one of its predicates is
// set.
type Constraint struct {
	FailureMessage string           `json:"failureMessage,omitempty"`
	GVK            *GVK             `json:"gvk,omitempty"`
	Package        *PackageRequired `json:"package,omitempty"`
	Cel            *Cel             `json:"cel,omitempty"`
	All            *Compound        `json:"all,omitempty"`
	Any            *Compound        `json:"any,omitempty"`
	Not            *Compound        `json:"not,omitempty"`
}

// Cel is a CEL rule evaluated over a candidate bundle's properties.
type Cel struct {
	Rule string `json:"rule"`
}

// Compound groups constraints under all, any or not.
type Compound struct {
	Constraints []Constraint `json:"constraints"`
}

// BundleObject is an olm.bundle.object property: one manifest of the bundle,
// base64-encoded in the catalog.
type BundleObject struct {
	Data []byte `json:"data"`
}

// Set is the typed view of a properties list. Values olmops does not need
// eagerly (CSV metadata, bundle objects, unknown types) stay raw in Others
// and are decoded on demand.
type Set struct {
	Packages            []Package
	GVKs                []GVK
	PackagesRequired    []PackageRequired
	GVKsRequired        []GVK
	Constraints         []Constraint
	MaxOpenShiftVersion string
	KubeVersion         string
	Deprecated          bool
	// BundleObjects and CSVMetadata are indexes into the properties list.
	BundleObjects []int
	CSVMetadata   int
	// Invalid are the properties of a known type that did not parse, so
	// that a caller can tell a missing property from a broken one.
	Invalid []*Error
}

// Error is a property of a known type that does not parse.
type Error struct {
	Pos Pos
	// Index is the property's place in the list it came from.
	Index int
	Type  string
	Err   error
}

func (e *Error) Error() string { return fmt.Sprintf("%s: parse property %q: %v", e.Pos, e.Type, e.Err) }

func (e *Error) Unwrap() error { return e.Err }

// Parse types every property it knows. Parsing goes on past a bad
// property; every failure is in Set.Invalid and returned as an error.
func Parse(props []Property) (Set, []error) {
	s := Set{CSVMetadata: -1}
	var errs []error
	for i, p := range props {
		if err := s.add(i, p); err != nil {
			e := &Error{Pos: p.Pos, Index: i, Type: p.Type, Err: err}
			s.Invalid = append(s.Invalid, e)
			errs = append(errs, e)
		}
	}
	return s, errs
}

func (s *Set) add(i int, p Property) error {
	switch p.Type {
	case TypePackage:
		var v Package
		if err := decodeStrict(p.Value, &v); err != nil {
			return err
		}
		s.Packages = append(s.Packages, v)
	case TypeGVK:
		var v GVK
		if err := decodeStrict(p.Value, &v); err != nil {
			return err
		}
		s.GVKs = append(s.GVKs, v)
	case TypePackageRequired:
		var v PackageRequired
		if err := decodeStrict(p.Value, &v); err != nil {
			return err
		}
		s.PackagesRequired = append(s.PackagesRequired, v)
	case TypeGVKRequired:
		var v GVK
		if err := decodeStrict(p.Value, &v); err != nil {
			return err
		}
		s.GVKsRequired = append(s.GVKsRequired, v)
	case TypeConstraint:
		c, err := ParseConstraint(p.Value)
		if err != nil {
			return err
		}
		s.Constraints = append(s.Constraints, c)
	case TypeMaxOpenShiftVersion:
		v, err := scalarString(p.Value)
		if err != nil {
			return err
		}
		s.MaxOpenShiftVersion = v
	case TypeKubeVersion:
		var v KubeVersion
		if err := decodeStrict(p.Value, &v); err != nil {
			return err
		}
		s.KubeVersion = v.Version
	case TypeDeprecated:
		s.Deprecated = true
	case TypeBundleObject:
		s.BundleObjects = append(s.BundleObjects, i)
	case TypeCSVMetadata:
		s.CSVMetadata = i
	}
	return nil
}

// ParseConstraint decodes an olm.constraint value, refusing one larger than
// MaxConstraintSize or with no or several predicates at one level.
func ParseConstraint(v Value) (Constraint, error) {
	if v.Len() > MaxConstraintSize {
		return Constraint{}, fmt.Errorf("constraint is %d bytes, more than the %d allowed", v.Len(), MaxConstraintSize)
	}
	var c Constraint
	b, err := v.JSON()
	if err != nil {
		return Constraint{}, err
	}
	// Unknown fields are refused, as OLM does: a misspelt predicate must
	// not silently turn into no constraint.
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Constraint{}, err
	}
	if err := c.check(0); err != nil {
		return Constraint{}, err
	}
	return c, nil
}

// maxConstraintDepth bounds compound nesting so evaluation stays bounded.
const maxConstraintDepth = 32

func (c Constraint) check(depth int) error {
	if depth > maxConstraintDepth {
		return fmt.Errorf("constraint nested deeper than %d levels", maxConstraintDepth)
	}
	n := 0
	for _, set := range []bool{c.GVK != nil, c.Package != nil, c.Cel != nil, c.All != nil, c.Any != nil, c.Not != nil} {
		if set {
			n++
		}
	}
	switch {
	case n == 0:
		return errors.New("constraint has no predicate (one of gvk, package, cel, all, any, not)")
	case n > 1:
		return errors.New("constraint has more than one predicate (one of gvk, package, cel, all, any, not)")
	}
	for _, comp := range []*Compound{c.All, c.Any, c.Not} {
		if comp == nil {
			continue
		}
		if len(comp.Constraints) == 0 {
			return errors.New("compound constraint has no constraints")
		}
		for _, sub := range comp.Constraints {
			if err := sub.check(depth + 1); err != nil {
				return err
			}
		}
	}
	if c.Cel != nil && strings.TrimSpace(c.Cel.Rule) == "" {
		return errors.New("cel constraint has an empty rule")
	}
	return nil
}

// DecodeBundleObject decodes the manifest carried by an olm.bundle.object
// value (the raw Kubernetes object, JSON or YAML).
func DecodeBundleObject(v Value) ([]byte, error) {
	var o struct {
		Data string `json:"data"`
	}
	if err := v.Decode(&o); err != nil {
		return nil, err
	}
	b, err := base64.StdEncoding.DecodeString(o.Data)
	if err != nil {
		return nil, fmt.Errorf("olm.bundle.object data: %w", err)
	}
	return b, nil
}

func decodeStrict(v Value, out any) error {
	b, err := v.JSON()
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, out); err != nil {
		return err
	}
	return nil
}

// scalarString reads a value written as a string or a bare number
// (olm.maxOpenShiftVersion appears both ways: "4.9" and 4.9).
func scalarString(v Value) (string, error) {
	b, err := v.JSON()
	if err != nil {
		return "", err
	}
	var s string
	if json.Unmarshal(b, &s) == nil {
		return s, nil
	}
	var f json.Number
	if err := json.Unmarshal(b, &f); err != nil {
		return "", fmt.Errorf("want a string or a number, got %s", b)
	}
	if _, err := strconv.ParseFloat(f.String(), 64); err != nil {
		return "", err
	}
	return f.String(), nil
}
