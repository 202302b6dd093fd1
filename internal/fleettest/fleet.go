package fleettest

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/internal/corpus"
	"github.com/olmops/olmops/internal/gittest"
)

// corpusCatalog is the community catalog of ocp-v4.20 inside the shared
// corpus, found from any package folder (internal/corpus).
const corpusCatalog = "catalogs/ocp-v4.20/community-operators-prod"

// Fleet is a generated repository.
type Fleet struct {
	// Dir is the repository's worktree; its main branch holds one commit.
	Dir string
	// Packages are the subscribed packages, one Subscription each per
	// cluster in the namespace named after the package.
	Packages []*catalog.Package

	// source is the folder the catalog was copied from.
	source      string
	bundlesPath string
	// heads are the channel heads NewHead wrote, by package.
	heads map[string]string
}

// Options shape a fleet.
type Options struct {
	Clusters, Subscriptions int
	// BundlesPath, when set, is written as the catalog's bundlesPath with
	// a generated registry+v1 folder for every bundle of the subscribed
	// packages (the catalog only names their images).
	BundlesPath string
	// Manual makes the Subscriptions of the first Manual packages (by
	// name) installPlanApproval: Manual, so a change to them is proposed
	// rather than committed.
	Manual int
	// Dir, when set, is the folder the repository is made in (under a
	// new name); else the benchmark's own TempDir, removed as it ends.
	Dir string
}

// Write writes a fleet into a new git repository; a missing corpus fails
// the benchmark, or skips it with OLMOPS_NO_SHARED=1 (internal/corpus).
func Write(b testing.TB, opts Options) *Fleet {
	b.Helper()
	src := corpus.Path(b, corpusCatalog)
	dir := b.TempDir()
	if opts.Dir != "" {
		var err error
		if dir, err = os.MkdirTemp(opts.Dir, "fleet"); err != nil {
			b.Fatal(err)
		}
	}
	gittest.Git(b, dir, "init", "--quiet", "--initial-branch=main")
	if err := os.CopyFS(filepath.Join(dir, "catalogs/community"), os.DirFS(src)); err != nil {
		b.Fatal(err)
	}
	cat, err := catalog.LoadDir(b.Context(), src, "community")
	if err != nil {
		b.Fatal(err)
	}
	pkgs := independentPackages(cat, opts.Subscriptions)
	if len(pkgs) < opts.Subscriptions {
		b.Fatalf("only %d packages without dependencies", len(pkgs))
	}
	f := &Fleet{Dir: dir, Packages: pkgs, source: src, bundlesPath: opts.BundlesPath}
	catalogLine := "    - {name: community}\n"
	if opts.BundlesPath != "" {
		catalogLine = "    - {name: community, bundlesPath: " + opts.BundlesPath + "}\n"
		for _, p := range pkgs {
			for _, bn := range p.BundleNames() {
				f.WriteFile(b, opts.BundlesPath+"/"+bn+"/manifests/csv.yaml", csv(bn))
			}
		}
	}
	var cfg strings.Builder
	cfg.WriteString("apiVersion: config.olmops.io/v1alpha1\nkind: RepositoryConfig\nspec:\n  catalogs:\n" + catalogLine + "  clusters:\n")
	for c := range opts.Clusters {
		fmt.Fprintf(&cfg, "    - {name: c%03d, approval: Automatic}\n", c)
		for i, p := range pkgs {
			approval := ""
			if i < opts.Manual {
				approval = ", installPlanApproval: Manual"
			}
			f.WriteFile(b, fmt.Sprintf("clusters/c%03d/subscriptions/%s.yaml", c, p.Name),
				fmt.Sprintf("apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: %s, namespace: %s}\nspec: {name: %s, source: community%s}\n", p.Name, Namespace(p.Name), p.Name, approval))
		}
	}
	f.WriteFile(b, "olmops.yaml", cfg.String())
	gittest.Git(b, dir, "add", "--all")
	gittest.Git(b, dir, "commit", "--quiet", "-m", "fleet")
	return f
}

// CatalogFile is the slash path in the repository of the catalog file
// that holds pos, a position of one of Packages.
func (f *Fleet) CatalogFile(b testing.TB, pos catalog.Pos) string {
	b.Helper()
	rel, err := filepath.Rel(f.source, pos.File)
	if err != nil || strings.HasPrefix(rel, "..") {
		b.Fatalf("%s is not in the fleet's catalog %s", pos.File, f.source)
	}
	return "catalogs/community/" + filepath.ToSlash(rel)
}

// WriteFile writes a file of the worktree, making its folders.
func (f *Fleet) WriteFile(b testing.TB, name, data string) {
	b.Helper()
	p := filepath.Join(f.Dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		b.Fatal(err)
	}
}

// Bare clones the fleet without a worktree, as planners and reviews in
// CI and the controller read repositories, and returns its folder.
func (f *Fleet) Bare(b testing.TB) string {
	b.Helper()
	bare := b.TempDir()
	gittest.Git(b, bare, "clone", "--quiet", "--bare", f.Dir, bare)
	return bare
}

// Namespace keeps generated namespace names DNS labels.
func Namespace(pkg string) string {
	if len(pkg) > 50 {
		return pkg[:50]
	}
	return strings.Trim(pkg, "-")
}

// independentPackages are n packages whose bundles need nothing else and
// that have no deprecations yet, so each subscription resolves alone.
func independentPackages(cat *catalog.Catalog, n int) []*catalog.Package {
	var out []*catalog.Package
	for _, name := range cat.PackageNames() {
		p := cat.Packages[name]
		ok := p.DefaultChannel != "" && len(p.Bundles) <= 30 && p.Deprecation == nil
		for _, bd := range p.Bundles {
			s := bd.Props
			if len(s.PackagesRequired)+len(s.GVKsRequired)+len(s.Constraints) > 0 || s.KubeVersion != "" || bd.Version == nil {
				ok = false
			}
		}
		if ok {
			out = append(out, p)
		}
		if len(out) == n {
			break
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// csv is a small CSV installing one operator in all namespaces, or in
// its own namespace where an OperatorGroup says so (as most operators of
// the catalog allow), so a fleet may install a package twice.
func csv(name string) string {
	return fmt.Sprintf(`apiVersion: operators.coreos.com/v1alpha1
kind: ClusterServiceVersion
metadata:
  name: %[1]s
spec:
  installModes:
    - {type: OwnNamespace, supported: true}
    - {type: AllNamespaces, supported: true}
  install:
    strategy: deployment
    spec:
      clusterPermissions:
        - serviceAccountName: operator
          rules:
            - {apiGroups: [""], resources: [pods, configmaps], verbs: [get, list, watch]}
      deployments:
        - name: operator
          spec:
            selector: {matchLabels: {app: operator}}
            template:
              metadata: {labels: {app: operator}}
              spec:
                serviceAccountName: operator
                containers:
                  - name: manager
                    image: example.com/%[1]s:latest
`, name)
}
