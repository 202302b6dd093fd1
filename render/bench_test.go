package render

import "testing"

// BenchmarkRender renders real bundles the way a plan does for each of a
// cluster's subscriptions.
func BenchmarkRender(b *testing.B) {
	cases := []struct {
		name              string
		dir, pkg, bundle  string
		namespace, target string
	}{
		{"patterns-operator", patternsCatalog, patternsPackage, patternsBundle, "patterns", "patterns"},
		{"submariner", ocpCatalogs + "/stolostron-submariner-operator-fbc", "submariner", "submariner.v0.24.0", "submariner-operator", "submariner-operator"},
		{"compliance-operator", ocpCatalogs + "/openshift-compliance-operator-fbc", "compliance-operator", "compliance-operator.v1.9.2", "openshift-compliance", "openshift-compliance"},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			bundle := realBundle(b, c.dir, c.pkg, c.bundle)
			opts := Options{Namespace: c.namespace, Config: map[string]any{"env": []any{map[string]any{"name": "A", "value": "b"}}}}
			if c.target != "" {
				opts.TargetNamespaces = []string{c.target}
			}
			b.ReportAllocs()
			var objects int
			for b.Loop() {
				res, err := Render(bundle, opts)
				if err != nil {
					b.Fatal(err)
				}
				objects += len(res.Objects)
			}
			b.ReportMetric(float64(objects)/float64(b.N), "objects/op")
		})
	}
}

// BenchmarkFromCatalog measures decoding a bundle's manifests from its
// catalog properties, which comes before every Render.
func BenchmarkFromCatalog(b *testing.B) {
	cb := loadCatalog(b, ocpCatalogs+"/stolostron-submariner-operator-fbc").Packages["submariner"].Bundles["submariner.v0.24.0"]
	b.ReportAllocs()
	for b.Loop() {
		if _, err := FromCatalog(cb); err != nil {
			b.Fatal(err)
		}
	}
}
