package apply

import (
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// What the server writes on its own is no change to show.
func TestWithoutServerFields(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{
			"name": "c", "namespace": "ns", "labels": map[string]any{"a": "b"},
			"managedFields": []any{map[string]any{"manager": "olmops"}}, "resourceVersion": "7",
			"generation": int64(2), "uid": "u", "creationTimestamp": "2026-01-01T00:00:00Z",
		},
		"data":   map[string]any{"k": "v"},
		"status": map[string]any{"phase": "x"},
	}}
	want := map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "c", "namespace": "ns", "labels": map[string]any{"a": "b"}},
		"data":     map[string]any{"k": "v"},
	}
	got := withoutServerFields(obj)
	if !reflect.DeepEqual(got.Object, want) {
		t.Errorf("got %v\nwant %v", got.Object, want)
	}
	if _, ok := obj.Object["status"]; !ok {
		t.Error("the object passed in was changed")
	}
}
