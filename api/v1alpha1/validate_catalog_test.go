package v1alpha1

import (
	"strings"
	"testing"
)

// TestCatalogScope pins issue 15 items 1 and 2 in olmops.yaml: catalog
// labels follow Kubernetes' label rules, the name label cannot be set to
// another name, and namespaces are namespace names; each problem at its
// line.
func TestCatalogScope(t *testing.T) {
	const head = "apiVersion: config.olmops.io/v1alpha1\nkind: RepositoryConfig\nspec:\n  catalogs:\n"
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{name: "valid", in: "    - name: hub\n      labels: {tier: internal, example.com/team: db, olm.operatorframework.io/metadata.name: hub}\n      namespaces: [a, b]\n"},
		{name: "bad label key and value", in: "    - name: hub\n      labels:\n        tier: \"not valid!\"\n        -bad: x\n", want: []string{
			`olmops.yaml:8: spec.catalogs[0].labels.-bad: label key "-bad" is invalid: name part must consist of alphanumeric characters`,
			`olmops.yaml:7: spec.catalogs[0].labels.tier: label value "not valid!" is invalid: a valid label must be an empty string or consist of alphanumeric characters`,
		}},
		{name: "name label set to another name", in: "    - name: hub\n      labels:\n        olm.operatorframework.io/metadata.name: other\n", want: []string{
			`olmops.yaml:7: spec.catalogs[0].labels.olm.operatorframework.io/metadata.name: label olm.operatorframework.io/metadata.name is the catalog's name ("hub") and cannot be set to "other"`,
		}},
		{name: "empty namespaces", in: "    - name: hub\n      namespaces: []\n", want: []string{
			`olmops.yaml:6: spec.catalogs[0].namespaces: must name at least one namespace; leave it out for a global catalog`,
		}},
		{name: "bad and repeated namespaces", in: "    - name: hub\n      namespaces:\n        - Team_A\n        - b\n        - b\n", want: []string{
			`olmops.yaml:7: spec.catalogs[0].namespaces[0]: namespace "Team_A" is invalid: a lowercase RFC 1123 label must consist of`,
			`olmops.yaml:9: spec.catalogs[0].namespaces[2]: namespace "b" is listed twice`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Load("olmops.yaml", []byte(head+tc.in))
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatal(err)
				}
				if c := r.Spec.Catalogs[0]; c.Labels["tier"] != "internal" || len(c.Namespaces) != 2 {
					t.Errorf("catalog = %+v", c)
				}
				return
			}
			if err == nil {
				t.Fatal("Load succeeded")
			}
			got := strings.Split(err.Error(), "\n")
			if len(got) != len(tc.want) {
				t.Fatalf("errors:\n%s\nwant %d", err, len(tc.want))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("errors:\n%s\nwant one starting %q", err, w)
				}
			}
		})
	}
}
