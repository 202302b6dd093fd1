package render

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// crdWithSchema is a one-version CRD whose v1 spec schema is given as
// YAML (a flow mapping), decoded as the API server decodes numbers.
func crdWithSchema(t *testing.T, scope, spec string) *unstructured.Unstructured {
	t.Helper()
	doc := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: ` + scope + `
  names: {plural: widgets, kind: Widget}
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, properties: {spec: ` + spec + `}}}
`
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(j); err != nil {
		t.Fatal(err)
	}
	return u
}

func TestCRDBreaks(t *testing.T) {
	const base = `{type: object, properties: {size: {type: integer, minimum: 1, maximum: 9}, mode: {type: string, enum: [a, b], default: a}, name: {type: string}}}`
	tests := []struct {
		name, scope, spec string
		want              []string
	}{
		{"same", "Namespaced", base, nil},
		{"compatible widening", "Namespaced", `{type: object, properties: {size: {type: integer, minimum: 0}, mode: {type: string, enum: [a, b, c], default: a}, name: {type: string}, extra: {type: string}}}`, nil},
		{"scope", "Cluster", base, []string{"scope changes from Namespaced to Cluster"}},
		{"field removed", "Namespaced", `{type: object, properties: {size: {type: integer, minimum: 1, maximum: 9}, mode: {type: string, enum: [a, b], default: a}}}`,
			[]string{"v1.spec: field name is removed"}},
		{"new required", "Namespaced", `{type: object, required: [name], properties: {size: {type: integer, minimum: 1, maximum: 9}, mode: {type: string, enum: [a, b], default: a}, name: {type: string}}}`,
			[]string{"v1.spec: name becomes required"}},
		{"type, enum, bounds, default, pattern", "Namespaced", `{type: object, properties: {size: {type: string}, mode: {type: string, enum: [a], default: b}, name: {type: string, pattern: "^x"}}}`,
			[]string{
				"v1.spec.mode: default changes from a to b",
				"v1.spec.mode: enum narrows from [a b] to [a]",
				"v1.spec.name: pattern changes from none to ^x",
				"v1.spec.size: type changes from integer to string",
			}},
		{"bounds tighten", "Namespaced", `{type: object, properties: {size: {type: integer, minimum: 2, maximum: 8}, mode: {type: string, enum: [a, b], default: a}, name: {type: string, maxLength: 63}}}`,
			[]string{"v1.spec.name: maxLength falls from none to 63", "v1.spec.size: maximum falls from 9 to 8", "v1.spec.size: minimum rises from 1 to 2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := crdBreaks(crdWithSchema(t, "Namespaced", base), crdWithSchema(t, tt.scope, tt.spec))
			if !slices.Equal(got, tt.want) {
				t.Errorf("crdBreaks =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}
