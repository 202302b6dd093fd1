package resolver

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/olmops/olmops/catalog"
)

// CatalogNameLabel is the label OLM v1 gives every ClusterCatalog with its
// name; every catalog carries it for selectors.
const CatalogNameLabel = "olm.operatorframework.io/metadata.name"

// ParseCatalogSelector reads a ClusterExtension's raw
// spec.source.catalog.selector (JSON values: map[string]any, []any,
// string...) with Kubernetes' own label selector rules: matchLabels and
// matchExpressions, ANDed. Nil raw selects every catalog. Errors keep
// operator-controller's words.
func ParseCatalogSelector(raw map[string]any) (labels.Selector, error) {
	if raw == nil {
		return labels.Everything(), nil
	}
	var ls metav1.LabelSelector
	b, err := json.Marshal(raw)
	if err == nil {
		err = json.Unmarshal(b, &ls)
	}
	var sel labels.Selector
	if err == nil {
		sel, err = metav1.LabelSelectorAsSelector(&ls)
	}
	if err != nil {
		return nil, fmt.Errorf("desired catalog selector is invalid: %w", err)
	}
	return sel, nil
}

// selectLabels keeps the catalogs sel matches, each seen with its Labels
// and its name label.
func selectLabels(cats []*catalog.Catalog, sel labels.Selector) []*catalog.Catalog {
	var out []*catalog.Catalog
	for _, c := range cats {
		set := labels.Set{}
		for k, v := range c.Labels {
			set[k] = v
		}
		set[CatalogNameLabel] = c.Name
		if sel.Matches(set) {
			out = append(out, c)
		}
	}
	return out
}
