package catalogimport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/property"
)

// bundlesRebuilt lists the bundles of next that prev has under the same
// name with other content: a bundle image rebuilt and re-pushed under the
// same version, which clusters would install anew although no version
// moved.
func bundlesRebuilt(prev, next *catalog.Package) []BundleChange {
	if prev == nil || next == nil {
		return nil
	}
	var out []BundleChange
	for _, name := range next.BundleNames() {
		p, n := prev.Bundles[name], next.Bundles[name]
		if p == nil {
			continue
		}
		if what := bundleChange(p, n); what != "" {
			out = append(out, BundleChange{Package: next.Name, Name: name, Version: bundleLabel(n, name), Detail: what})
		}
	}
	return out
}

// bundleChange words how b differs from a; "" when it does not.
func bundleChange(a, b *catalog.Bundle) string {
	switch {
	case a.Image != b.Image:
		return fmt.Sprintf("image %s → %s", a.Image, b.Image)
	case !slices.Equal(a.RelatedImages, b.RelatedImages):
		return "related images changed"
	case !sameProperties(a.Properties, b.Properties):
		return "properties changed"
	}
	return ""
}

// sameProperties compares properties by type and JSON value, whatever
// format each was written in.
func sameProperties(a, b []property.Property) bool {
	return slices.EqualFunc(a, b, func(x, y property.Property) bool {
		return x.Type == y.Type && sameValue(x.Value, y.Value)
	})
}

func sameValue(x, y property.Value) bool {
	xj, xerr := x.JSON()
	yj, yerr := y.JSON()
	if xerr != nil || yerr != nil {
		return false
	}
	// Most values come back byte for byte; only the others are decoded.
	var xc, yc bytes.Buffer
	if json.Compact(&xc, xj) == nil && json.Compact(&yc, yj) == nil && bytes.Equal(xc.Bytes(), yc.Bytes()) {
		return true
	}
	var xv, yv any
	if json.Unmarshal(xj, &xv) != nil || json.Unmarshal(yj, &yv) != nil {
		return false
	}
	return reflect.DeepEqual(xv, yv)
}
