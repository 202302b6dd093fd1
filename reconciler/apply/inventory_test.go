package apply

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

func TestInventory(t *testing.T) {
	dep := Entry{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "ns", Name: "op", Digest: "old"}
	crd := Entry{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Name: "widgets.example.com"}
	sa := Entry{Version: "v1", Kind: "ServiceAccount", Namespace: "ns", Name: "op"}
	newer := dep
	newer.Version, newer.Digest = "v2", "new"

	inv := normalize([]Entry{sa, dep, crd, newer})
	if want := (Inventory{sa, crd, newer}); !slices.Equal(inv, want) {
		t.Errorf("normalize = %v, want %v (sorted, the last of each object kept)", inv, want)
	}
	if !inv.Has(Entry{Group: "apps", Kind: "Deployment", Namespace: "ns", Name: "op"}) || inv.Has(Entry{Kind: "ServiceAccount", Name: "op"}) {
		t.Errorf("Has ignores the version but not the namespace")
	}
	if got := inv.without(map[key]bool{crd.key(): true}); !slices.Equal(got, Inventory{sa, newer}) || len(inv) != 3 {
		t.Errorf("without = %v and changed its receiver: %v", got, inv)
	}

	data, err := json.Marshal(inv)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"v":"v1","k":"ServiceAccount","ns":"ns","n":"op"},` +
		`{"g":"apiextensions.k8s.io","v":"v1","k":"CustomResourceDefinition","n":"widgets.example.com"},` +
		`{"g":"apps","v":"v2","k":"Deployment","ns":"ns","n":"op","d":"new"}]`
	if string(data) != want {
		t.Errorf("JSON\n%s\nwant\n%s", data, want)
	}
	if got := sa.String() + "; " + crd.String(); got != "ServiceAccount ns/op; CustomResourceDefinition widgets.example.com" {
		t.Errorf("String = %q", got)
	}
}

func TestPrepare(t *testing.T) {
	manifest := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "annotations": map[string]any{HashAnnotation: "stale"}},
		"data":     map[string]any{"a": "1"},
	}}
	first, err := prepare(manifest)
	if err != nil {
		t.Fatal(err)
	}
	if manifest.GetAnnotations()[HashAnnotation] != "stale" || manifest.GetLabels() != nil {
		t.Errorf("prepare changed the manifest: %v", manifest.Object)
	}
	hash := first.GetAnnotations()[HashAnnotation]
	if len(hash) != digestLen || first.GetLabels()["app.kubernetes.io/managed-by"] != "olmops" {
		t.Errorf("prepared %v", first.Object)
	}
	// The hash of an object read back and prepared again is the same.
	again, _ := prepare(first)
	changed := manifest.DeepCopy()
	changed.Object["data"] = map[string]any{"a": "2"}
	other, _ := prepare(changed)
	if again.GetAnnotations()[HashAnnotation] != hash || other.GetAnnotations()[HashAnnotation] == hash {
		t.Errorf("hashes: first %s, again %s, changed %s", hash, again.GetAnnotations()[HashAnnotation], other.GetAnnotations()[HashAnnotation])
	}
}

func TestLiveDigest(t *testing.T) {
	fields := func(raw string) *metav1.FieldsV1 { return &metav1.FieldsV1{Raw: []byte(raw)} }
	base := func() *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		u.SetUID("u1")
		u.SetManagedFields([]metav1.ManagedFieldsEntry{
			{Manager: "olmops", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "apps/v1", Time: &metav1.Time{Time: time.Unix(1e9, 0)}, FieldsV1: fields(`{"f:spec":{"f:replicas":{}}}`)},
			{Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, Subresource: "status", FieldsV1: fields(`{"f:status":{}}`)},
		})
		return u
	}
	ref := liveDigest(base())
	tests := []struct {
		name   string
		change func(u *unstructured.Unstructured)
		same   bool
	}{
		{"status writer", func(u *unstructured.Unstructured) {
			m := u.GetManagedFields()
			m[1].FieldsV1 = fields(`{"f:status":{"f:replicas":{}}}`)
			u.SetManagedFields(m)
		}, true},
		{"time", func(u *unstructured.Unstructured) {
			m := u.GetManagedFields()
			m[0].Time = &metav1.Time{Time: m[0].Time.Add(1e9)}
			u.SetManagedFields(m)
		}, true},
		{"order", func(u *unstructured.Unstructured) {
			m := u.GetManagedFields()
			slices.Reverse(m)
			u.SetManagedFields(m)
		}, true},
		{"someone edits", func(u *unstructured.Unstructured) {
			u.SetManagedFields(append(u.GetManagedFields(), metav1.ManagedFieldsEntry{Manager: "kubectl-edit", Operation: metav1.ManagedFieldsOperationUpdate, FieldsV1: fields(`{"f:spec":{"f:replicas":{}}}`)}))
		}, false},
		{"olmops loses a field", func(u *unstructured.Unstructured) {
			m := u.GetManagedFields()
			m[0].FieldsV1 = fields(`{"f:spec":{}}`)
			u.SetManagedFields(m)
		}, false},
		{"recreated", func(u *unstructured.Unstructured) { u.SetUID("u2") }, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := base()
			tt.change(u)
			if same := liveDigest(u) == ref; same != tt.same {
				t.Errorf("digest unchanged = %v, want %v", same, tt.same)
			}
		})
	}
}
