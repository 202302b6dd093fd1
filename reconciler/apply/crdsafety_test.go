package apply

import (
	"errors"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olmops/olmops/commitstatus"
)

// gadgetCRD is a CRD of a group unique to ns whose versions are given as
// YAML.
func gadgetCRD(t *testing.T, ns, versions string) *unstructured.Unstructured {
	t.Helper()
	group := ns + ".safety.olmops.io"
	crd := &unstructured.Unstructured{}
	doc := `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: gadgets.` + group + `}
spec:
  group: ` + group + `
  scope: Namespaced
  names: {plural: gadgets, singular: gadget, kind: Gadget, listKind: GadgetList}
  versions:
` + versions
	if err := yaml.Unmarshal([]byte(doc), &crd.Object); err != nil {
		t.Fatal(err)
	}
	return crd
}

const (
	gadgetV1 = `  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
`
	gadgetBreaking = `  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [color]
            properties:
              size: {type: string}
              color: {type: string}
`
	gadgetCompatible = `  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [color]
            properties:
              size: {type: integer, minimum: 1}
              color: {type: string, default: blue}
`
	gadgetRenamed = `  - name: v2
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
)

// A CRD update that existing custom resources would not pass is refused
// before anything of the hop is written, as OLM classic refuses it.
func TestCRDUpgradeSafety(t *testing.T) {
	tests := []struct {
		name     string
		versions string
		want     []string // in the reason; none: the hop goes through
	}{
		{"type change and new required field", gadgetBreaking, []string{
			"updated validation is too restrictive", "Gadget ", "/g1 (v1): spec.size: Invalid value", "spec.color: Required value"}},
		{"new required field with a default, narrower minimum still met", gadgetCompatible, nil},
		{"stored version dropped", gadgetRenamed, []string{"version v1 has objects stored in it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := kube.Env(t)
			ns := env.NewNamespace(t)
			a := testApplier(env.Client)
			old := gadgetCRD(t, ns, gadgetV1)
			req := installed(t, a, Request{Namespace: ns, Subscription: "gadgets", Hops: []Hop{{Bundle: "gadgets.v1", Objects: []*unstructured.Unstructured{old}}}})
			cr := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": ns + ".safety.olmops.io/v1", "kind": "Gadget",
				"metadata": map[string]any{"name": "g1", "namespace": ns},
				"spec":     map[string]any{"size": int64(3)},
			}}
			if err := env.Client.Create(t.Context(), cr); err != nil {
				t.Fatal(err)
			}

			req.Hops = []Hop{{Bundle: "gadgets.v2", Objects: []*unstructured.Unstructured{gadgetCRD(t, ns, tt.versions)}}}
			res, err := a.Apply(t.Context(), req)
			if tt.want == nil {
				if err != nil || res.Phase != commitstatus.Installed {
					t.Fatalf("refused a safe update: %+v, %v", res, err)
				}
				return
			}
			if !errors.Is(err, ErrCRDUnsafe) || res.Phase != commitstatus.Failed || res.Applied != 0 || res.Installed != "gadgets.v1" {
				t.Fatalf("not refused: %+v, %v", res, err)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Reason, w) {
					t.Errorf("reason %q lacks %q", res.Reason, w)
				}
			}
			live := get(t, env.Client, crdGVK, "", old.GetName())
			vs, _, _ := unstructured.NestedSlice(live.Object, "spec", "versions")
			size, _, _ := unstructured.NestedString(vs[0].(map[string]any), "schema", "openAPIV3Schema", "properties", "spec", "properties", "size", "type")
			if vs[0].(map[string]any)["name"] != "v1" || size != "integer" {
				t.Errorf("the live CRD changed: %v", vs[0])
			}
		})
	}
}

// gadgetTwoServed serves v1 (stored) and v2; gadgetV2Unserved keeps v2
// but stops serving it.
const (
	gadgetTwoServed = gadgetV1 + `  - name: v2
    served: true
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
	gadgetV2Unserved = gadgetV1 + `  - name: v2
    served: false
    storage: false
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
`
)

// Two plans share a CRD: one may not stop serving a version the other's
// copy still serves, whether it removes the version or sets served: false.
// Without another plan serving it, the version may go.
func TestCRDSharedServedVersions(t *testing.T) {
	tests := []struct {
		name     string
		versions string
		shared   []string // plans serving v2 in their copy
		want     string   // in the reason; "": the hop goes through
	}{
		{"removed, needed by another plan", gadgetV1, []string{"team-b/gadgets"}, "version v2 stops being served, and team-b/gadgets still serve it"},
		{"unserved, needed by another plan", gadgetV2Unserved, []string{"team-b/gadgets"}, "version v2 stops being served"},
		{"removed, needed by no other plan", gadgetV1, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := kube.Env(t)
			ns := env.NewNamespace(t)
			a := testApplier(env.Client)
			old := gadgetCRD(t, ns, gadgetTwoServed)
			req := installed(t, a, Request{Namespace: ns, Subscription: "gadgets", Hops: []Hop{{Bundle: "gadgets.v1", Objects: []*unstructured.Unstructured{old}}}})
			if tt.shared != nil {
				req.SharedCRDs = map[string]map[string][]string{old.GetName(): {"v1": {"team-b/gadgets"}, "v2": tt.shared}}
			}
			req.Hops = []Hop{{Bundle: "gadgets.v2", Objects: []*unstructured.Unstructured{gadgetCRD(t, ns, tt.versions)}}}
			res, err := a.Apply(t.Context(), req)
			if tt.want == "" {
				if err != nil || res.Phase != commitstatus.Installed {
					t.Fatalf("refused: %+v, %v", res, err)
				}
				return
			}
			if !errors.Is(err, ErrCRDUnsafe) || res.Phase != commitstatus.Failed || res.Applied != 0 || !strings.Contains(res.Reason, tt.want) {
				t.Fatalf("not refused with %q: %+v, %v", tt.want, res, err)
			}
			live := get(t, env.Client, crdGVK, "", old.GetName())
			vs, _, _ := unstructured.NestedSlice(live.Object, "spec", "versions")
			if len(vs) != 2 || vs[1].(map[string]any)["served"] != true {
				t.Errorf("the live CRD changed: %v", vs)
			}
		})
	}
}
