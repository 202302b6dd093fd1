package v1alpha1_test

import (
	"os"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	"github.com/olmops/olmops/api/v1alpha1"
)

// TestConfigFileIsNotARepositoryObject applies the example olmops.yaml the
// way a sync of the repository root would: the API server must not take it
// for a Repository (a CRD with another schema), and must say the kind is
// unknown instead.
func TestConfigFileIsNotARepositoryObject(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "examples", v1alpha1.RepositoryFile))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := v1alpha1.Load(v1alpha1.RepositoryFile, data)
	if err != nil {
		t.Fatalf("the example does not load: %v", err)
	}
	if cfg.APIVersion != v1alpha1.ConfigGroupVersion || cfg.Kind != v1alpha1.ConfigKind {
		t.Fatalf("the example says %s %s, want %s %s", cfg.APIVersion, cfg.Kind, v1alpha1.ConfigGroupVersion, v1alpha1.ConfigKind)
	}
	env := kube.Env(t)
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(data, &u.Object); err != nil {
		t.Fatal(err)
	}
	u.SetNamespace(env.NewNamespace(t))
	err = env.Client.Create(t.Context(), u)
	if !meta.IsNoMatchError(err) {
		t.Fatalf("creating olmops.yaml as an object: got %v, want a no-match error for its kind", err)
	}
}
