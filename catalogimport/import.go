package catalogimport

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/gitsource"
)

// Catalog images carry a base OS, opm and its cache beside /configs, all
// read through: the limits for pulling one are those of a whole catalog
// image (see oci.Options).
const (
	MaxImageBytes = 4 << 30
	MaxFiles      = 100000
)

// Images pulls catalog images; *oci.Puller is one.
type Images interface {
	Catalog(ctx context.Context, image string) (*oci.Image, error)
}

// Options say what to import and where.
type Options struct {
	// Image is the catalog image reference.
	Image string
	// Into is the catalog folder, relative to the repository root (such
	// as catalogs/operatorhub); its base name names the catalog.
	Into string
	// Packages to keep; none keeps every package.
	Packages []string
	// Images pulls Image.
	Images Images
	// Dir is the repository's worktree: the import replaces Dir/Into.
	// Unused with Propose, which compares with and commits to the remote.
	Dir string
	// Propose, when set, proposes the import instead of writing Dir.
	Propose *Propose
}

// Propose says where an import is proposed: one commit replacing the
// catalog folder on the branch olmops/import/<catalog>, pushed when Repo
// has an origin, and a proposal through the forge.
type Propose struct {
	// Repo receives the commit.
	Repo *gitsource.Repo
	// Forge returns the forge olmops.yaml configures; nil, or a nil Forge
	// returned, means the git-only forge on Repo.
	Forge gitsource.ForgeFunc
	// Author signs the commit; a default olmops identity when empty.
	Author object.Signature
	// Automatic commits the import straight to the base branch (pushed
	// fast-forward only) instead of proposing it: a catalog source set to
	// approval Automatic.
	Automatic bool
	// Branch is the base branch: where an Automatic import is committed
	// and what a proposal targets. Empty means the remote's default
	// branch; a Planner names its spec.branch, which may differ.
	Branch string
}

// Run imports opts.Image: it pulls the image, keeps and validates the
// wanted packages, renders the catalog folder and writes or proposes it.
// An invalid catalog fails with an *InvalidError and writes nothing.
func Run(ctx context.Context, opts Options) (*Summary, error) {
	if opts.Into == "" || !filepath.IsLocal(opts.Into) {
		return nil, fmt.Errorf("catalog import: folder %q: want a folder inside the repository, such as catalogs/NAME", opts.Into)
	}
	if opts.Dir == "" {
		opts.Dir = "."
	}
	if opts.Images == nil {
		return nil, errors.New("catalog import: no image puller")
	}
	img, err := opts.Images.Catalog(ctx, opts.Image)
	if err != nil {
		return nil, err
	}
	name := filepath.Base(filepath.Clean(opts.Into))
	next, files, err := renderImport(ctx, img, name, opts.Packages)
	if err != nil {
		return nil, err
	}
	sum := &Summary{Catalog: name, Image: opts.Image, Digest: img.Digest, Dir: opts.Into, Packages: next.PackageNames()}
	if opts.Propose != nil {
		if err := propose(ctx, opts, next, files, sum); err != nil {
			return nil, err
		}
		return sum, nil
	}
	dir := filepath.Join(opts.Dir, opts.Into)
	sum.diff(previousCatalog(ctx, sum, dir, name), next)
	cfgFile := filepath.Join(opts.Dir, v1alpha1.RepositoryFile)
	listed, err := readOptional(os.DirFS(opts.Dir), v1alpha1.RepositoryFile)
	if err != nil {
		return nil, err
	}
	// Refused before anything is written.
	if listed, err = register(listed, name, filepath.ToSlash(opts.Into)); err != nil {
		return nil, err
	}
	if sum.Changed, err = replaceDir(dir, files); err != nil {
		return nil, fmt.Errorf("catalog import: %w", err)
	}
	if listed != nil {
		if err := replaceFile(cfgFile, listed); err != nil {
			return nil, fmt.Errorf("catalog import: %w", err)
		}
		sum.Changed, sum.Registered = true, true
	}
	return sum, nil
}

// renderImport loads the image's catalog, keeps the wanted packages,
// validates them and renders the files of the catalog folder.
func renderImport(ctx context.Context, img *oci.Image, name string, want []string) (*catalog.Catalog, map[string][]byte, error) {
	shown := img.Ref + img.Root
	cfg, err := fbc.Load(ctx, img.FS, fbc.Options{Prefix: shown})
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, err
		}
		return nil, nil, &InvalidError{Image: img.Ref, Problems: catalog.AsProblems(err)}
	}
	if cfg, err = selectImport(cfg, want, img.Ref); err != nil {
		return nil, nil, err
	}
	c := catalog.New(name, cfg)
	ps := c.Validate()
	ps = append(ps, folderProblems(cfg)...)
	if len(ps) > 0 {
		return nil, nil, &InvalidError{Image: img.Ref, Problems: ps}
	}
	files, err := renderCatalogFiles(c, cfg)
	return c, files, err
}

// InvalidError says the imported catalog is invalid; nothing was written.
type InvalidError struct {
	// Image is the catalog image.
	Image string
	// Problems lists what is wrong, by file and line of the image.
	Problems catalog.Problems
}

func (e *InvalidError) Error() string {
	return fmt.Sprintf("catalog of image %s is invalid, nothing written:\n%s", e.Image, e.Problems.Error())
}

// selectImport keeps the objects of the wanted packages; with none wanted,
// everything. Objects of no package stay only then.
func selectImport(cfg *fbc.Config, want []string, image string) (*fbc.Config, error) {
	if len(want) == 0 {
		return cfg, nil
	}
	var avail []string
	for _, p := range cfg.Packages {
		avail = append(avail, p.Name)
	}
	slices.Sort(avail)
	for _, w := range want {
		if !slices.Contains(avail, w) {
			return nil, fmt.Errorf("package %q is not in catalog image %s; it has: %s", w, image, strings.Join(slices.Compact(avail), ", "))
		}
	}
	in := func(pkg string) bool { return slices.Contains(want, pkg) }
	out := &fbc.Config{}
	for _, p := range cfg.Packages {
		if in(p.Name) {
			out.Packages = append(out.Packages, p)
		}
	}
	out.Channels = filterBy(cfg.Channels, in, func(c fbc.Channel) string { return c.Package })
	out.Bundles = filterBy(cfg.Bundles, in, func(b fbc.Bundle) string { return b.Package })
	out.Deprecations = filterBy(cfg.Deprecations, in, func(d fbc.Deprecation) string { return d.Package })
	out.Others = filterBy(cfg.Others, in, func(b fbc.Blob) string { return b.Package })
	return out, nil
}

func filterBy[T any](xs []T, keep func(string) bool, pkg func(T) string) []T {
	var out []T
	for _, x := range xs {
		if keep(pkg(x)) {
			out = append(out, x)
		}
	}
	return out
}

// folderProblems refuses package names that cannot be a folder of their
// own, on every object: a file would land outside its package's folder.
func folderProblems(cfg *fbc.Config) catalog.Problems {
	var ps catalog.Problems
	check := func(pos fbc.Pos, pkg string) {
		if pkg != "" && (!filepath.IsLocal(pkg) || strings.ContainsAny(pkg, `/\`) || strings.HasPrefix(pkg, ".")) {
			ps = append(ps, catalog.Problem{Pos: pos, Package: pkg, Message: fmt.Sprintf("package name %q cannot be a folder name", pkg)})
		}
	}
	for _, p := range cfg.Packages {
		check(p.Pos, p.Name)
	}
	for _, ch := range cfg.Channels {
		check(ch.Pos, ch.Package)
	}
	for _, b := range cfg.Bundles {
		check(b.Pos, b.Package)
	}
	for _, d := range cfg.Deprecations {
		check(d.Pos, d.Package)
	}
	for _, o := range cfg.Others {
		check(o.Pos, o.Package)
	}
	return ps
}

// previousCatalog loads what the folder held before, for the summary. A
// folder that does not load counts as empty: the import replaces it.
func previousCatalog(ctx context.Context, sum *Summary, dir, name string) *catalog.Catalog {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	c, err := catalog.LoadDir(ctx, dir, name)
	if err != nil {
		sum.Warnings = append(sum.Warnings, fmt.Sprintf("previous content of %s does not load, comparing with nothing: %v", dir, err))
		return nil
	}
	return c
}

// renderCatalogFiles lays the catalog out as <package>/catalog.yaml files,
// plus catalog.yaml for objects of no package. Files render in parallel.
func renderCatalogFiles(c *catalog.Catalog, cfg *fbc.Config) (map[string][]byte, error) {
	groups := map[string]*fbc.Config{}
	group := func(pkg string) *fbc.Config {
		if groups[pkg] == nil {
			groups[pkg] = &fbc.Config{}
		}
		return groups[pkg]
	}
	for _, p := range cfg.Packages {
		group(p.Name).Packages = append(group(p.Name).Packages, p)
	}
	for _, ch := range cfg.Channels {
		group(ch.Package).Channels = append(group(ch.Package).Channels, ch)
	}
	for _, b := range cfg.Bundles {
		group(b.Package).Bundles = append(group(b.Package).Bundles, b)
	}
	for _, d := range cfg.Deprecations {
		group(d.Package).Deprecations = append(group(d.Package).Deprecations, d)
	}
	for _, o := range cfg.Others {
		group(o.Package).Others = append(group(o.Package).Others, o)
	}
	names := slices.Sorted(maps.Keys(groups))
	out := make([][]byte, len(names))
	errs := make([]error, len(names))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			out[i], errs[i] = renderFile(c, groups[name])
		})
	}
	wg.Wait()
	files := map[string][]byte{}
	for i, name := range names {
		files[filepath.Join(name, "catalog.yaml")] = out[i]
	}
	return files, errors.Join(errs...)
}
