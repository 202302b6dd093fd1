package v1alpha1

import (
	"os"
	"testing"
)

func FuzzLoad(f *testing.F) {
	if data, err := os.ReadFile("../../examples/olmops.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("apiVersion: olmops.io/v1alpha1\nkind: Repository\nspec:\n  forge: {type: github, owner: a, repo: b, tokenSecret: {name: s}}\n  clusters: [{name: a, kubernetesVersion: '1.2'}]\n"))
	f.Add([]byte("a: &a [*a]\nspec: *a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Load("olmops.yaml", data)
		if err != nil {
			return
		}
		if err := r.Validate(); err != nil {
			t.Errorf("Load accepted a RepositoryConfig Validate rejects: %v", err)
		}
		r.SetDefaults("main")
		if err := r.Validate(); err != nil {
			t.Errorf("SetDefaults made a valid RepositoryConfig invalid: %v", err)
		}
	})
}

func FuzzLoadCluster(f *testing.F) {
	f.Add([]byte("kubernetesVersion: 1.33.2\nopenshiftVersion: 4.20.3\n"))
	f.Add([]byte("kubernetesVersion: [1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := LoadCluster("cluster.yaml", data)
		if err == nil && c.Validate() != nil {
			t.Errorf("LoadCluster accepted facts Validate rejects")
		}
	})
}
