package v1alpha1

import (
	"os"
	"path"
	"strings"
	"testing"
	"testing/fstest"
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

// FuzzReadFacts cross-checks olmops.yaml and a cluster's cluster.yaml:
// whatever both say, a cluster whose facts merge holds valid facts, each
// from one of the two files, and one given differently in both is refused
// with the file named.
func FuzzReadFacts(f *testing.F) {
	f.Add([]byte("apiVersion: config.olmops.io/v1alpha1\nkind: RepositoryConfig\nspec:\n  clusters: [{name: a, kubernetesVersion: 1.33.2}]\n"), []byte("kubernetesVersion: 1.33.2\nopenshiftVersion: 4.20.3\n"))
	f.Add([]byte("apiVersion: config.olmops.io/v1alpha1\nkind: RepositoryConfig\nspec:\n  clusters: [{name: a, path: x, openshiftVersion: 4.19.0}]\n"), []byte("openshiftVersion: 4.20.3\n"))
	f.Fuzz(func(t *testing.T, repo, cluster []byte) {
		fsys := fstest.MapFS{RepositoryFile: {Data: repo}}
		r, err := Load(RepositoryFile, repo)
		if err != nil {
			return
		}
		r.SetDefaults("main")
		for _, c := range r.Spec.Clusters {
			fsys[path.Join(c.Path, ClusterFile)] = &fstest.MapFile{Data: cluster}
		}
		facts, ferr := LoadCluster(ClusterFile, cluster)
		for _, c := range r.Spec.Clusters {
			entry := c.ClusterFacts
			err := c.ReadFacts(fsys)
			if ferr != nil {
				if err == nil {
					t.Fatalf("%s: a cluster.yaml LoadCluster refuses was merged", c.Name)
				}
				continue
			}
			conflict := entry.KubernetesVersion != "" && facts.KubernetesVersion != "" && entry.KubernetesVersion != facts.KubernetesVersion ||
				entry.OpenShiftVersion != "" && facts.OpenShiftVersion != "" && entry.OpenShiftVersion != facts.OpenShiftVersion
			if conflict != (err != nil) {
				t.Fatalf("%s: conflict %v, ReadFacts error %v", c.Name, conflict, err)
			}
			if err != nil {
				if !strings.HasPrefix(err.Error(), path.Join(c.Path, ClusterFile)+": ") {
					t.Fatalf("error does not name the file: %v", err)
				}
				continue
			}
			if c.ClusterFacts.Validate() != nil {
				t.Fatalf("%s: merged facts %+v are invalid", c.Name, c.ClusterFacts)
			}
			for _, got := range [][3]string{{c.KubernetesVersion, entry.KubernetesVersion, facts.KubernetesVersion}, {c.OpenShiftVersion, entry.OpenShiftVersion, facts.OpenShiftVersion}} {
				if got[0] != got[1] && got[0] != got[2] {
					t.Fatalf("%s: fact %q is from neither file (%q, %q)", c.Name, got[0], got[1], got[2])
				}
			}
		}
	})
}
