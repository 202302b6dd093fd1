package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalogimport"
	"github.com/olmops/olmops/gitsource"
)

type catalogImportOptions struct {
	streams
	Image       string
	Into        string
	Packages    []string
	Repo        string
	Output      string
	CacheDir    string
	GitCacheDir string
	Timeout     time.Duration
	Push        bool
	Verbose     bool
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
is written when the catalog is invalid. The summary counts new, removed and
rebuilt (same version, new content) bundles and channel-head moves; with -v
it lists them: new (+), removed (-), rebuilt (~), and each head move. On a
terminal, standard error shows the pull while it runs.
When olmops.yaml lists catalogs but not this folder, the import adds it there,
or refuses with the lines to add.

With --push the import is proposed instead: one commit replacing the folder
on the branch olmops/import/NAME, based on the remote's default branch as
fetched now (never on a local branch that may be stale), pushed to origin,
and a pull request titled like "catalog operatorhub: etcd 0.9.4 available"
through the forge olmops.yaml names (the git-only forge when none), whose
body lists the new bundles and channel-head moves. --repo may then be a URL,
cloned into --git-cache-dir as olmops plan does.

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
	f.StringVar(&opts.Repo, "repo", ".", "the desired-state repository: a folder, or a URL with --push")
	addOutputFlag(cmd, &opts.Output, "text", "json", "yaml")
	f.StringVar(&opts.CacheDir, "cache-dir", "", "image cache (default: olmops/images in the user cache directory)")
	f.StringVar(&opts.GitCacheDir, "git-cache-dir", "", "where a --repo URL is cloned (default: olmops/git in the user cache directory)")
	f.DurationVar(&opts.Timeout, "timeout", 10*time.Minute, "time allowed for pulling the image")
	f.BoolVarP(&opts.Verbose, "verbose", "v", false, "list every new, removed and rebuilt bundle and each channel-head move, not only their counts")
	f.BoolVar(&opts.Push, "push", false, "propose the import instead of writing it: a commit on olmops/import/NAME, pushed, and a pull request through the forge")
	return cmd
}

func catalogImportRun(ctx context.Context, opts *catalogImportOptions) error {
	if err := oneOf("output", opts.Output, "text", "json", "yaml"); err != nil {
		return err
	}
	if opts.Into == "" || !filepath.IsLocal(opts.Into) {
		return usageErrorf("--into %q: want a folder inside the repository, such as catalogs/NAME", opts.Into)
	}
	if isURL(opts.Repo) && !opts.Push {
		return usageErrorf("--repo %s is a URL: an import written into a clone olmops keeps would go nowhere; add --push", opts.Repo)
	}
	p, err := oci.New(oci.Options{CacheDir: opts.CacheDir, Timeout: opts.Timeout, MaxImageBytes: catalogimport.MaxImageBytes, MaxFiles: catalogimport.MaxFiles})
	if err != nil {
		return err
	}
	run := catalogimport.Options{Image: opts.Image, Into: opts.Into, Packages: opts.Packages, Images: p, Dir: opts.Repo}
	if opts.Push {
		repo, err := openRepo(ctx, opts.Repo, opts.GitCacheDir, true)
		if err != nil {
			return err
		}
		run.Propose = &catalogimport.Propose{
			Repo:  repo,
			Forge: func(r *v1alpha1.RepositoryConfig) (gitsource.Forge, error) { return forgeFor(ctx, r) },
		}
	}
	done := progress(opts.Err, "pulling %s", opts.Image)
	sum, err := catalogimport.Run(ctx, run)
	done()
	if invalid := (*catalogimport.InvalidError)(nil); errors.As(err, &invalid) {
		return invalidImport{invalid}
	}
	if err != nil {
		return err
	}
	for _, w := range sum.Warnings {
		fmt.Fprintf(opts.Err, "olmops: %s\n", w)
	}
	return writeImportSummary(opts.Out, opts.Output, sum, opts.Verbose)
}

// invalidImport maps an invalid catalog to the findings exit code.
type invalidImport struct{ *catalogimport.InvalidError }

func (e invalidImport) Is(target error) bool { return target == errFindings }

// writeImportSummary prints what an import changed, as text or JSON. The
// text counts the changes, and lists them when verbose: a full catalog
// adds thousands of bundles, which no one reads on a terminal.
func writeImportSummary(w io.Writer, format string, s *catalogimport.Summary, verbose bool) error {
	if structured(format) {
		return encode(w, format, s)
	}
	var b strings.Builder
	b.WriteString(s.Title() + "\n")
	if verbose {
		writeImportChanges(&b, s)
	} else {
		b.WriteString(importCounts(s))
	}
	verb := "wrote"
	switch {
	case s.Held != "":
		b.WriteString("held: " + s.Held + "\n")
		verb = "not proposed:"
	case !s.Changed:
		verb = "unchanged:"
	case s.Proposal != nil:
		verb = "proposed on " + s.Proposal.Head + ":"
		if s.Proposal.URL != "" {
			verb = "proposed in " + s.Proposal.URL + ":"
		}
	}
	fmt.Fprintf(&b, "%s %s (%d package(s)) from %s@%s\n", verb, s.Dir, len(s.Packages), s.Image, s.Digest)
	_, err := io.WriteString(w, b.String())
	return err
}

// importCounts is the one line that sums an import up, or "" when it
// changed no bundle and moved no head.
func importCounts(s *catalogimport.Summary) string {
	n := len(s.NewBundles) + len(s.RemovedBundles) + len(s.RebuiltBundles) + len(s.HeadMoves)
	if n == 0 {
		return ""
	}
	pkgs := map[string]bool{}
	for _, l := range [][]catalogimport.BundleChange{s.NewBundles, s.RemovedBundles, s.RebuiltBundles} {
		for _, x := range l {
			pkgs[x.Package] = true
		}
	}
	for _, h := range s.HeadMoves {
		pkgs[h.Package] = true
	}
	return fmt.Sprintf("  bundles: %d new, %d removed, %d rebuilt; %d channel head(s) moved; in %d package(s) (-v lists them)\n",
		len(s.NewBundles), len(s.RemovedBundles), len(s.RebuiltBundles), len(s.HeadMoves), len(pkgs))
}

// writeImportChanges lists every bundle change and head move.
func writeImportChanges(b *strings.Builder, s *catalogimport.Summary) {
	for _, x := range s.NewBundles {
		b.WriteString("  + " + x.String() + "\n")
	}
	for _, x := range s.RemovedBundles {
		b.WriteString("  - " + x.String() + "\n")
	}
	for _, x := range s.RebuiltBundles {
		b.WriteString("  ~ " + x.String() + "\n")
	}
	for _, h := range s.HeadMoves {
		b.WriteString("  " + h.String() + "\n")
	}
}
