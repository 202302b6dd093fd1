package catalogimport

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci/ocitest"
	"github.com/olmops/olmops/internal/gittest"
)

const listed = `# The olmops configuration.
apiVersion: olmops.io/v1alpha1
kind: Repository
metadata:
  name: example
spec:
  catalogs:
    - name: operatorhub
      path: catalogs/operatorhub
    # Preferred over operatorhub.
    - name: internal
      priority: 10
  clusters:
    # Production.
    - name: prod-east
      path: clusters/prod-east
`

func TestRegister(t *testing.T) {
	tests := []struct {
		name, data, catalog, dir string
		want                     string // "" when nothing changes
		refused                  string
	}{
		{"no olmops.yaml", "", "community", "catalogs/community", "", ""},
		{"no catalogs listed", "apiVersion: olmops.io/v1alpha1\nkind: Repository\nspec:\n  clusters:\n    - name: a\n", "community", "catalogs/community", "", ""},
		{"listed by path", listed, "operatorhub", "catalogs/operatorhub/", "", ""},
		{"listed by default path", listed, "internal", "catalogs/internal", "", ""},
		{"added", listed, "community", "catalogs/community", strings.Replace(listed, "      priority: 10\n", "      priority: 10\n    - name: community\n      path: catalogs/community\n", 1), ""},
		{"name taken", listed, "internal", "vendor/internal", "", "a catalog named internal already reads catalogs/internal"},
		{"not a valid name", listed, "Community_Ops", "catalogs/Community_Ops", "", "add under spec.catalogs:\n    - name: Community_Ops\n      path: catalogs/Community_Ops\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var data []byte
			if tt.data != "" {
				data = []byte(tt.data)
			}
			got, err := register(data, tt.catalog, tt.dir)
			var unlisted *UnlistedError
			switch {
			case tt.refused != "":
				if !errors.As(err, &unlisted) || !strings.Contains(err.Error(), tt.refused) {
					t.Errorf("error %v, want a refusal with %q", err, tt.refused)
				}
			case err != nil:
				t.Errorf("error %v", err)
			case string(got) != tt.want:
				t.Errorf("got:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// A proposed import into a folder olmops.yaml does not list adds it to the
// file in the same commit.
func TestRunProposeRegisters(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/community:v1")
	reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, nil)))
	repo := exampleRepo(t)
	opts := into(ref, repo, importer(t))
	opts.Into = "catalogs/community"
	opts.Propose = &Propose{Repo: openRepo(t, repo)}
	sum, err := Run(t.Context(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Registered || !strings.Contains(sum.Body(), "Adds catalog `community` to `olmops.yaml`") {
		t.Errorf("registered %v, body:\n%s", sum.Registered, sum.Body())
	}
	data := gittest.Git(t, repo, "show", "olmops/import/community:olmops.yaml")
	cfg, err := v1alpha1.Load("olmops.yaml", []byte(data))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(cfg.Spec.Catalogs); n != 3 || cfg.Spec.Catalogs[2].Name != "community" || cfg.Spec.Catalogs[2].Path != "catalogs/community" {
		t.Errorf("olmops.yaml lists %+v", cfg.Spec.Catalogs)
	}
	if !strings.Contains(data, "    # Preferred over operatorhub when both provide a package or GVK.\n") {
		t.Errorf("olmops.yaml lost its comments:\n%s", data)
	}
	if files := gittest.Git(t, repo, "diff", "--name-only", "main", "olmops/import/community"); !strings.Contains(files, "olmops.yaml\n") {
		t.Errorf("the import commit changes only:\n%s", files)
	}
}

// Writing into a worktree refuses, before writing anything, what it
// cannot register.
func TestRunRefusesUnlisted(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/community:v1")
	reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, nil)))
	repo := t.TempDir()
	if err := os.WriteFile(repo+"/olmops.yaml", []byte(listed), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := into(ref, repo, importer(t))
	opts.Into = "vendor/internal"
	_, err := Run(t.Context(), opts)
	var unlisted *UnlistedError
	if !errors.As(err, &unlisted) {
		t.Fatalf("error %v, want an *UnlistedError", err)
	}
	if _, err := os.Stat(repo + "/vendor"); !os.IsNotExist(err) {
		t.Errorf("a refused import wrote its folder: %v", err)
	}
}

// FuzzRegister checks that whatever olmops.yaml holds, register either
// leaves it alone, refuses, or returns a file that lists the catalog.
func FuzzRegister(f *testing.F) {
	f.Add(listed, "community")
	f.Add("apiVersion: olmops.io/v1alpha1\nkind: Repository\nspec:\n  catalogs: [{name: a}]\n", "b")
	f.Add("apiVersion: olmops.io/v1alpha1\nkind: Repository\nspec:\n    catalogs:\n    # c\n    - name: a\n      path: x/a\n", "b")
	f.Fuzz(func(t *testing.T, data, name string) {
		out, err := register([]byte(data), name, "catalogs/"+name)
		if err != nil || out == nil {
			return
		}
		cfg, err := v1alpha1.Load(v1alpha1.RepositoryFile, out)
		if err != nil {
			t.Fatalf("register wrote a file that does not load: %v\n%s", err, out)
		}
		cfg.SetDefaults("")
		found := false
		for _, c := range cfg.Spec.Catalogs {
			found = found || (c.Name == name && c.Path == "catalogs/"+name)
		}
		if !found {
			t.Fatalf("register did not add %q:\n%s", name, out)
		}
	})
}

// A proposed import refuses what it cannot register as well, before it
// commits or pushes anything, and says what to add.
func TestRunProposeRefusesUnlisted(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	ref := reg.Ref("olmops/community:v1")
	reg.Push(t, ref, ocitest.CatalogImage(t, catalogFS(t, nil)))
	repo := exampleRepo(t)
	opts := into(ref, repo, importer(t))
	opts.Into = "vendor/internal"
	opts.Propose = &Propose{Repo: openRepo(t, repo)}
	_, err := Run(t.Context(), opts)
	var unlisted *UnlistedError
	if !errors.As(err, &unlisted) || !strings.Contains(err.Error(), "add under spec.catalogs:\n    - name: internal\n      path: vendor/internal\n") {
		t.Fatalf("error %v, want an *UnlistedError with the lines to add", err)
	}
	if refs := gittest.Git(t, repo, "for-each-ref", "--format=%(refname)"); strings.Contains(refs, "olmops/import") {
		t.Errorf("a refused import left refs:\n%s", refs)
	}
}
