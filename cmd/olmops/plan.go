package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/planner"
)

type planOptions struct {
	streams
	Repo     string
	Branch   string
	Clusters []string
	Push     bool
	Check    bool
	Ref      string
	Output   string
	CacheDir string
	ImageDir string
}

func newPlanCmd(s streams) *cobra.Command {
	opts := &planOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "plan [--repo DIR|URL] [--cluster NAME]... [--push] [--check]",
		Short: "Resolve every subscription and write or propose its InstallPlan",
		Long: `Plan resolves the Subscriptions and ClusterExtensions of every cluster of a
desired-state repository against its catalogs, renders each upgrade's
manifests, and writes the plans that changed under
clusters/<cluster>/plans/<namespace>/<subscription>/.

Automatic plans become one commit per cluster on the cluster's target
branch. Manual plans become a branch olmops/<cluster>/<namespace>/<name>
and a proposal: a pull request with the GitHub forge, or the branch itself
with the git-only forge. Merging approves; closing rejects that version,
which is not proposed again.

Without --push everything stays in the local repository. With --push,
commits and branches go to origin and proposals to the forge olmops.yaml
configures (GitHub reads its token from $GITHUB_TOKEN, or the variable
forge.tokenEnv names). --repo URL clones into --cache-dir and needs --push;
runs sharing a --cache-dir take turns.

With --push, plans start from origin's branch as just fetched, not from
the local one: the local branch is fast-forwarded (or reset, when it only
holds olmops' own unpushed plan commits) to what is pushed. A local branch
holding someone's commits that origin lacks is refused. The run exits 0
only when everything it committed is on the remote.

--check writes nothing: it exits 1 when a committed plan is stale or
missing and no proposal carries it, listing what would change. A Manual
plan awaiting approval in an open proposal, or rejected by a closed one,
is reported as such and is not a finding. --ref checks the plans at a revision
(a pull request's head, in CI) instead of each cluster's target branch.

Exit codes: 0 done (or, with --check, every plan current, awaiting approval or rejected); 1 a cluster could
not be planned (its problems are printed, nothing was written for it; other
clusters proceed) or --check found stale plans; 2 usage or I/O error.

Bundles whose manifests are neither in the repository nor in the catalog
are pulled from their images (docker config or REGISTRY_AUTH_FILE
credentials), cached by digest, and recorded in the plan pinned by digest.`,
		Example: `  olmops plan --repo .
  olmops plan --repo . --cluster prod-east --push
  olmops plan --repo https://github.com/acme/fleet.git --push
  olmops plan --check -o json`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return planRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Repo, "repo", ".", "the desired-state repository: a local folder or a git URL")
	f.StringVar(&opts.Branch, "branch", "", "branch holding olmops.yaml (default: the checked-out branch, or the remote's default)")
	f.StringArrayVar(&opts.Clusters, "cluster", nil, "plan only this cluster (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("cluster", completeClusters)
	f.BoolVar(&opts.Push, "push", false, "push commits and plan branches to origin and open proposals")
	f.BoolVar(&opts.Check, "check", false, "write nothing; exit 1 if a committed plan is stale or missing")
	f.StringVar(&opts.Ref, "ref", "", "with --check: check the plans at this revision (such as a pull request's head) instead of each cluster's target branch")
	addOutputFlag(cmd, &opts.Output, "text", "json", "yaml")
	f.StringVar(&opts.CacheDir, "cache-dir", "", "where clones of --repo URLs are kept (default: the user cache folder)")
	f.StringVar(&opts.ImageDir, "image-cache", "", "where pulled bundle images are kept, by digest (default: the user cache folder)")
	return cmd
}

func planRun(ctx context.Context, opts *planOptions) error {
	if err := oneOf("output", opts.Output, "text", "json", "yaml"); err != nil {
		return err
	}
	if opts.Check && opts.Push {
		return usageErrorf("--check writes nothing: drop --push")
	}
	if opts.Ref != "" && !opts.Check {
		return usageErrorf("--ref is for --check")
	}
	repo, err := openRepo(ctx, opts.Repo, opts.CacheDir, opts.Push || opts.Check)
	if err != nil {
		return err
	}
	defer repo.Close()
	images, err := oci.New(oci.Options{CacheDir: opts.ImageDir})
	if err != nil {
		return err
	}
	// Pulls show on a terminal only, on stderr: stdout (and -o json or
	// yaml) stays the report alone.
	line := newStatusLine(opts.Err)
	p := planner.New(planner.Options{
		Repo: repo, Branch: opts.Branch, Clusters: opts.Clusters, Images: &pullProgress{ImageSource: images, line: line}, Pinner: oci.NewPinner(images),
		Push: opts.Push, Check: opts.Check, Ref: opts.Ref, Version: olmopsVersion(),
		Forge: func(r *v1alpha1.RepositoryConfig) (gitsource.Forge, error) { return forgeFor(ctx, r) },
	})
	report, err := p.Run(ctx)
	line.clear()
	if report != nil {
		if werr := writePlanReport(opts.Out, opts.Output, report); werr != nil && err == nil {
			err = werr
		}
	}
	switch {
	case errors.Is(err, planner.ErrUsage):
		return usageErrorf("%v", err)
	case err != nil:
		return err
	}
	if rerr := report.Err(); rerr != nil {
		if opts.Output == "text" {
			fmt.Fprintln(opts.Err, rerr)
		}
		return errFindings
	}
	if opts.Check && report.Stale() > 0 {
		return errFindings
	}
	return nil
}

// openRepo opens a local folder in place, or clones a URL into the cache.
func openRepo(ctx context.Context, where, cacheDir string, remoteOK bool) (*gitsource.Repo, error) {
	if !isURL(where) {
		return gitsource.Open(ctx, gitsource.Options{Path: where, Auth: envAuth()})
	}
	if !remoteOK {
		return nil, usageErrorf("--repo %s is a URL: plans committed to a clone olmops keeps would go nowhere; add --push (or --check)", where)
	}
	if cacheDir == "" {
		dir, err := os.UserCacheDir()
		if err != nil {
			return nil, fmt.Errorf("no --cache-dir and no user cache folder: %w", err)
		}
		cacheDir = filepath.Join(dir, "olmops", "git")
	}
	// Exclusive: runs sharing the cache clone take turns, since each one
	// moves its refs.
	return gitsource.Open(ctx, gitsource.Options{URL: where, CacheDir: cacheDir, Auth: envAuth(), Exclusive: true})
}

func isURL(s string) bool {
	if strings.Contains(s, "://") {
		return true
	}
	// scp-like user@host:path, as git reads it
	at, colon := strings.IndexByte(s, '@'), strings.IndexByte(s, ':')
	return at > 0 && colon > at && !strings.ContainsRune(s[:at], '/')
}

// envAuth reads git credentials from the environment, never from flags,
// so they stay out of shell history and process listings.
func envAuth() gitsource.Auth {
	a := gitsource.Auth{
		Token:    os.Getenv("OLMOPS_GIT_TOKEN"),
		Username: os.Getenv("OLMOPS_GIT_USERNAME"),
		Password: os.Getenv("OLMOPS_GIT_PASSWORD"),
	}
	if key := os.Getenv("OLMOPS_GIT_SSH_KEY_FILE"); key != "" {
		if data, err := os.ReadFile(key); err == nil {
			a.SSHKey = data
		}
	}
	return a
}

// forgeFor builds the forge olmops.yaml names; nil for the git-only one.
func forgeFor(ctx context.Context, r *v1alpha1.RepositoryConfig) (gitsource.Forge, error) {
	f := r.Spec.Forge
	if f == nil || f.Type != v1alpha1.ForgeGitHub {
		return nil, nil
	}
	env := f.TokenEnv
	if env == "" {
		env = "GITHUB_TOKEN"
	}
	token := os.Getenv(env)
	if token == "" {
		return nil, fmt.Errorf("%s: forge github needs a token in $%s", v1alpha1.RepositoryFile, env)
	}
	return github.New(ctx, github.Options{Owner: f.Owner, Repo: f.Repo, Token: token, BaseURL: f.BaseURL})
}
