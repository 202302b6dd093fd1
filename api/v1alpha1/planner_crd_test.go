package v1alpha1_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/olmops/olmops/api/v1alpha1"
)

func TestPlannerDefaults(t *testing.T) {
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	obj := &v1alpha1.Planner{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "minimal"},
		Spec: v1alpha1.PlannerSpec{URL: "https://git.example.com/acme/gitops.git"}}
	if err := env.Client.Create(t.Context(), obj); err != nil {
		t.Fatal(err)
	}
	var got v1alpha1.Planner
	if err := env.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), &got); err != nil {
		t.Fatal(err)
	}
	want := v1alpha1.PlannerSpec{URL: obj.Spec.URL, Branch: "main",
		Interval: metav1.Duration{Duration: 10 * time.Minute}, Timeout: metav1.Duration{Duration: 10 * time.Minute}}
	if !equality.Semantic.DeepEqual(got.Spec, want) {
		t.Errorf("defaulted spec:\n got %+v\nwant %+v", got.Spec, want)
	}
}

// Planner shares URL, branch, Secret and forge validation with
// Repository (the same markers); what is its own is checked here.
func TestPlannerSpecValidation(t *testing.T) {
	tests := []struct {
		name string
		edit func(spec map[string]any)
		want []string
	}{
		{name: "minimal", edit: func(map[string]any) {}},
		{name: "clusters", edit: set("clusters", []any{"prod-east", "staging"})},
		{name: "interval of ten seconds", edit: set("interval", "10s")},
		{name: "interval below ten seconds", edit: set("interval", "9s"), want: []string{"spec.interval", "must be at least 10s"}},
		{name: "cluster not DNS-1123", edit: set("clusters", []any{"Prod_East"}), want: []string{"spec.clusters[0]"}},
		{name: "empty cluster", edit: set("clusters", []any{""}), want: []string{"spec.clusters[0]"}},
		{name: "cluster twice", edit: set("clusters", []any{"a", "a"}), want: []string{"spec.clusters[1]", "Duplicate"}},
		{name: "no url", edit: func(s map[string]any) { delete(s, "url") }, want: []string{"spec.url", "Required"}},
		{name: "github forge without repo", edit: set("forge", map[string]any{"type": "github", "owner": "acme"}),
			want: []string{"spec.forge", "owner and repo are required for a github forge"}},
	}
	env := kube.Env(t)
	ns := env.NewNamespace(t)
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := map[string]any{"url": "https://git.example.com/acme/gitops.git"}
			tt.edit(spec)
			u := &unstructured.Unstructured{Object: map[string]any{
				"apiVersion": "olmops.io/v1alpha1", "kind": "Planner",
				"metadata": map[string]any{"namespace": ns, "name": fmt.Sprintf("spec-%d", i)},
				"spec":     spec,
			}}
			err := env.Client.Create(t.Context(), u)
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("a valid Planner was refused: %v", err)
				}
				return
			}
			checkInvalid(t, err, tt.want...)
		})
	}
}
