package main

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
	"time"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/catalog"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/oci"
)

// Catalog images carry a base OS, opm and its cache beside /configs, all
// read through: the limits are those of a whole catalog image.
const (
	importMaxImageBytes = 4 << 30
	importMaxFiles      = 100000
)

type catalogImportOptions struct {
	streams
	Image    string
	Into     string
	Packages []string
	Repo     string
	Output   string
	CacheDir string
	Timeout  time.Duration
	Push     bool
}

func newCatalogImportCmd(s streams) *cobra.Command {
	opts := &catalogImportOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "import IMAGE --into catalogs/NAME [--package P]...",
		Short: "Import the file-based catalog of a catalog image into the repository",
		Long: `Import pulls a catalog image (its /configs directory, as opm lays it out),
keeps the packages named with --package (all when none is), validates them and
writes them into the repository folder --into, one <package>/catalog.yaml each,
in a stable order so that the diff of a re-import shows exactly which bundles
and edges appeared. The folder's previous content is replaced at once; nothing
is written when the catalog is invalid.

With --push the import is proposed instead: one commit replacing the folder
on the branch olmops/import/NAME (based on the default branch), pushed to
origin, and a pull request titled like "catalog operatorhub: etcd 0.9.4
available" through the forge olmops.yaml names (the git-only forge when
none), whose body lists the new bundles and channel-head moves.

Credentials come from REGISTRY_AUTH_FILE, DOCKER_CONFIG or ~/.docker/config.json.

Exit codes: 0 imported, 1 the imported catalog is invalid, 2 usage, registry or
I/O error.`,
		Example: `  olmops catalog import quay.io/operatorhubio/catalog:latest --into catalogs/operatorhub --package etcd --package cert-manager
  olmops catalog import registry.redhat.io/redhat/redhat-operator-index:v4.20 --into catalogs/redhat -o json`,
		Args: args(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, a []string) error {
			opts.Image = a[0]
			return catalogImportRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Into, "into", "", "catalog folder to write, relative to --repo (e.g. catalogs/operatorhub)")
	f.StringArrayVar(&opts.Packages, "package", nil, "package to import; repeat for more (default: every package)")
	f.StringVar(&opts.Repo, "repo", ".", "the desired-state repository")
	f.StringVarP(&opts.Output, "output", "o", "text", "output format: text or json")
	f.StringVar(&opts.CacheDir, "cache-dir", "", "image cache (default: olmops/images in the user cache directory)")
	f.DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "time allowed for pulling the image")
	f.BoolVar(&opts.Push, "push", false, "propose the import instead of writing it: a commit on olmops/import/NAME, pushed, and a pull request through the forge")
	return cmd
}

func catalogImportRun(ctx context.Context, opts *catalogImportOptions) error {
	if err := oneOf("output", opts.Output, "text", "json"); err != nil {
		return err
	}
	if opts.Into == "" || !filepath.IsLocal(opts.Into) {
		return usageErrorf("--into %q: want a folder inside the repository, such as catalogs/NAME", opts.Into)
	}
	p, err := oci.New(oci.Options{CacheDir: opts.CacheDir, Timeout: opts.Timeout, MaxImageBytes: importMaxImageBytes, MaxFiles: importMaxFiles})
	if err != nil {
		return err
	}
	img, err := p.Catalog(ctx, opts.Image)
	if err != nil {
		return err
	}
	name := filepath.Base(filepath.Clean(opts.Into))
	next, files, err := renderImport(ctx, img, name, opts.Packages)
	if err != nil {
		return err
	}
	dir := filepath.Join(opts.Repo, opts.Into)
	sum := ImportSummary{Catalog: name, Image: opts.Image, Digest: img.Digest, Dir: opts.Into, Packages: next.PackageNames()}
	sum.diff(previousCatalog(ctx, opts, dir, name), next)
	if opts.Push {
		if err := proposeImport(ctx, opts, files, &sum); err != nil {
			return err
		}
		return sum.write(opts)
	}
	if sum.Changed, err = replaceDir(dir, files); err != nil {
		return fmt.Errorf("catalog import: %w", err)
	}
	return sum.write(opts)
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
		return nil, nil, &importError{Image: img.Ref, Problems: catalog.AsProblems(err)}
	}
	if cfg, err = selectImport(cfg, want, img.Ref); err != nil {
		return nil, nil, err
	}
	c := catalog.New(name, cfg)
	ps := c.Validate()
	ps = append(ps, folderProblems(cfg)...)
	if len(ps) > 0 {
		return nil, nil, &importError{Image: img.Ref, Problems: ps}
	}
	files, err := renderCatalogFiles(c, cfg)
	return c, files, err
}

// importError says the imported catalog is invalid: exit 1, nothing written.
type importError struct {
	Image    string
	Problems catalog.Problems
}

func (e *importError) Error() string {
	return fmt.Sprintf("catalog of image %s is invalid, nothing written:\n%s", e.Image, e.Problems.Error())
}

// Is makes an importError map to the findings exit code.
func (e *importError) Is(target error) bool { return target == errFindings }

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
func previousCatalog(ctx context.Context, opts *catalogImportOptions, dir, name string) *catalog.Catalog {
	if _, err := os.Stat(dir); err != nil {
		return nil
	}
	c, err := catalog.LoadDir(ctx, dir, name)
	if err != nil {
		fmt.Fprintf(opts.Err, "olmops: previous content of %s does not load, comparing with nothing: %v\n", dir, err)
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
