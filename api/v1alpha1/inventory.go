package v1alpha1

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ObjectRef identifies an applied object in a subscription's inventory
// (SubscriptionStatus.Inventory), where it is kept as a string to keep the
// status small.
type ObjectRef struct {
	// Group is the API group; empty for the core group.
	Group string
	// Version is the API version the object was applied with.
	Version string
	// Kind is the object's kind.
	Kind string
	// Namespace is empty for a cluster-scoped object.
	Namespace string
	// Name is the object's name.
	Name string
}

// GroupVersionKind returns the object's group, version and kind.
func (r ObjectRef) GroupVersionKind() schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
}

// String formats r as apiVersion/kind/namespace/name, the namespace empty
// for a cluster-scoped object: "apps/v1/Deployment/ns/name",
// "v1/ConfigMap/ns/name", "apiextensions.k8s.io/v1/CustomResourceDefinition//name".
// Object names cannot hold a slash, so the form parses back unambiguously.
func (r ObjectRef) String() string {
	return r.GroupVersionKind().GroupVersion().String() + "/" + r.Kind + "/" + r.Namespace + "/" + r.Name
}

// ParseObjectRef parses what ObjectRef.String formats. Group and namespace
// may be empty; version, kind and name may not.
func ParseObjectRef(s string) (ObjectRef, error) {
	parts := strings.Split(s, "/")
	var r ObjectRef
	switch len(parts) {
	case 4:
		r = ObjectRef{Version: parts[0], Kind: parts[1], Namespace: parts[2], Name: parts[3]}
	case 5:
		r = ObjectRef{Group: parts[0], Version: parts[1], Kind: parts[2], Namespace: parts[3], Name: parts[4]}
		if r.Group == "" {
			return ObjectRef{}, fmt.Errorf("object reference %q: empty group (the core group has no group part: v1/Kind/namespace/name)", s)
		}
	default:
		return ObjectRef{}, fmt.Errorf("object reference %q: want [group/]version/kind/namespace/name", s)
	}
	for _, f := range []struct{ name, value string }{{"version", r.Version}, {"kind", r.Kind}, {"name", r.Name}} {
		if f.value == "" {
			return ObjectRef{}, fmt.Errorf("object reference %q: empty %s", s, f.name)
		}
	}
	return r, nil
}
