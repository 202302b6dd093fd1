package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
	"github.com/olmops/olmops/planner"
	"github.com/olmops/olmops/review"
)

type reviewOptions struct {
	streams
	Repo           string
	Base, Head     string
	Branch         string
	Clusters       []string
	Output         string
	Plans          string
	FailOnWarnings bool
	PostStatus     bool
	GitHubRepo     string
	GitHubAPIURL   string
	TargetURL      string
	Report         string
}

func newReviewCmd(s streams) *cobra.Command {
	opts := &reviewOptions{streams: s}
	cmd := &cobra.Command{
		Use:   "review --base REF --head REF [--repo DIR] [--cluster NAME]... [-o text|json|github|markdown]",
		Short: "Review a pull request: new problems, graph changes, what moves on which cluster",
		Long: `Review compares the desired state at two commits, the base and the head of a
pull request, and reports:

  - validation problems of olmops.yaml, the catalogs, the subscriptions and
    the committed plans: new with the head (these fail the review), already
    present at the base, or fixed;
  - the upgrade-graph diff of every package the head changes, as a table
    and a Mermaid drawing;
  - the impact: for every cluster and subscription, the bundle it resolves
    to at the base and at the head and what the planner will do after the
    merge; a subscription that stops resolving is an error, explained;
  - stale or missing plans (plan --check) of the clusters whose files the
    head changes (--plans all checks every cluster, which renders every
    plan; --plans none skips the check).

-o github writes GitHub Actions annotations, at most 10 per type, the most
important first, then a notice counting the rest; with $GITHUB_STEP_SUMMARY
set it also writes the Markdown report there. -o markdown writes that report
to standard output.

--post-status posts the verdict as the commit status olmops/review on the
head, with the summary line and a link to --target-url (by default the
Actions run). The token is read from $GITHUB_TOKEN, the repository from
--github-repo or $GITHUB_REPOSITORY, the API from --github-api-url or
$GITHUB_API_URL.

Exit codes: 0 no new errors; 1 new errors (or warnings with
--fail-on-warnings); 2 usage or I/O error, such as a base that names no
commit.`,
		Example: `  olmops review --base main --head my-branch
  olmops review --base "$BASE_SHA" --head "$HEAD_SHA" -o github
  olmops review --base main --head HEAD --post-status --github-repo acme/fleet`,
		Args: args(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return reviewRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Repo, "repo", ".", "the desired-state repository (a local git folder)")
	f.StringVar(&opts.Base, "base", "", "the revision the pull request merges into (required)")
	f.StringVar(&opts.Head, "head", "HEAD", "the revision under review")
	f.StringVar(&opts.Branch, "branch", "", "the branch the head merges into, for olmops.yaml's defaults (default: $GITHUB_BASE_REF, else the checked-out branch, else main)")
	f.StringArrayVar(&opts.Clusters, "cluster", nil, "review only this cluster's impact and plans (repeatable)")
	_ = cmd.RegisterFlagCompletionFunc("cluster", completeClusters)
	addOutputFlag(cmd, &opts.Output, "text", "json", "yaml", "github", "markdown")
	f.StringVar(&opts.Plans, "plans", string(review.PlansChanged), "which clusters' plans to check: changed, all or none")
	f.BoolVar(&opts.FailOnWarnings, "fail-on-warnings", false, "exit 1 on new warnings too")
	f.BoolVar(&opts.PostStatus, "post-status", false, "post the verdict as the commit status olmops/review on the head (token from $GITHUB_TOKEN)")
	f.StringVar(&opts.GitHubRepo, "github-repo", "", "OWNER/REPO for --post-status (default $GITHUB_REPOSITORY)")
	f.StringVar(&opts.GitHubAPIURL, "github-api-url", "", "GitHub API URL for --post-status (default $GITHUB_API_URL, else api.github.com)")
	f.StringVar(&opts.Report, "report", "", "also write the report as JSON to this file")
	f.StringVar(&opts.TargetURL, "target-url", "", "the status' link (default: the Actions run, from $GITHUB_SERVER_URL, $GITHUB_REPOSITORY and $GITHUB_RUN_ID)")
	return cmd
}

func reviewRun(ctx context.Context, opts *reviewOptions) error {
	if err := oneOf("output", opts.Output, "text", "json", "yaml", "github", "markdown"); err != nil {
		return err
	}
	if err := oneOf("plans", opts.Plans, string(review.PlansChanged), string(review.PlansAll), string(review.PlansNone)); err != nil {
		return err
	}
	if opts.Base == "" || opts.Head == "" {
		return usageErrorf("--base and --head name the commits to compare")
	}
	var forge *github.Forge
	if opts.PostStatus {
		f, err := opts.forge(ctx)
		if err != nil {
			return err
		}
		forge = f
	}
	repo, err := gitsource.Open(ctx, gitsource.Options{Path: opts.Repo})
	if err != nil {
		return err
	}
	r, err := review.Run(ctx, repo, review.RunOptions{
		Options: review.Options{Branch: cmp.Or(opts.Branch, os.Getenv("GITHUB_BASE_REF")), Clusters: opts.Clusters},
		Base:    opts.Base, Head: opts.Head, Plans: review.PlanScope(opts.Plans), Version: olmopsVersion(),
	})
	switch {
	case errors.Is(err, review.ErrRevision), errors.Is(err, planner.ErrUsage):
		return usageErrorf("%v", err)
	case err != nil:
		return err
	}
	if err := opts.write(r); err != nil {
		return err
	}
	if err := opts.writeReport(r); err != nil {
		return err
	}
	if forge != nil {
		if err := forge.SetStatus(ctx, r.Head.Hash, r.Status(opts.FailOnWarnings, opts.targetURL())); err != nil {
			return fmt.Errorf("post status: %w", err)
		}
	}
	if r.Failed(opts.FailOnWarnings) {
		return errFindings
	}
	return nil
}

func (opts *reviewOptions) write(r *review.Report) error {
	switch opts.Output {
	case "json", "yaml":
		return writeAs(opts.Out, opts.Output, func(w io.Writer) error { return review.WriteJSON(w, r) })
	case "markdown":
		return review.WriteMarkdown(opts.Out, r, opts.FailOnWarnings)
	case "github":
		if err := review.WriteGitHub(opts.Out, r, review.GitHubLimits); err != nil {
			return err
		}
		if path := os.Getenv("GITHUB_STEP_SUMMARY"); path != "" {
			return appendFile(path, func(w io.Writer) error { return review.WriteMarkdown(w, r, opts.FailOnWarnings) })
		}
		return nil
	}
	return review.WriteText(opts.Out, r)
}

// writeReport writes the JSON report to --report and, in GitHub Actions
// ($GITHUB_OUTPUT set), the step outputs the Action declares.
func (opts *reviewOptions) writeReport(r *review.Report) error {
	if opts.Report != "" {
		f, err := os.Create(opts.Report)
		if err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := review.WriteJSON(f, r); err != nil {
			f.Close()
			return fmt.Errorf("report %s: %w", opts.Report, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	path := os.Getenv("GITHUB_OUTPUT")
	if path == "" {
		return nil
	}
	return appendFile(path, func(w io.Writer) error {
		_, err := io.WriteString(w, stepOutputs(r, opts.Report))
		return err
	})
}

// stepOutputs are the review's GitHub step outputs: counts of errors and
// warnings, the clusters whose subscriptions move, and the report's path.
func stepOutputs(r *review.Report, report string) string {
	c := r.Count()
	var clusters []string
	for _, i := range r.Impact {
		if !slices.Contains(clusters, i.Cluster) {
			clusters = append(clusters, i.Cluster)
		}
	}
	slices.Sort(clusters)
	return fmt.Sprintf("errors=%d\nwarnings=%d\nclusters-affected=%s\nreport-path=%s\n",
		c.Errors, c.Warnings, strings.Join(clusters, ","), report)
}

// appendFile appends to a file the way GitHub expects step summaries to
// be written: other steps' summaries stay.
func appendFile(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("step summary: %w", err)
	}
	if err := write(f); err != nil {
		f.Close()
		return fmt.Errorf("step summary %s: %w", path, err)
	}
	return f.Close()
}

// forge is the GitHub forge --post-status posts through.
func (opts *reviewOptions) forge(ctx context.Context) (*github.Forge, error) {
	token := os.Getenv("GITHUB_TOKEN")
	if token == "" {
		return nil, usageErrorf("--post-status needs a token in $GITHUB_TOKEN")
	}
	full := cmp.Or(opts.GitHubRepo, os.Getenv("GITHUB_REPOSITORY"))
	owner, name, ok := strings.Cut(full, "/")
	if !ok || owner == "" || name == "" || strings.Contains(name, "/") {
		return nil, usageErrorf("--post-status needs --github-repo OWNER/REPO (or $GITHUB_REPOSITORY), got %q", full)
	}
	f, err := github.New(ctx, github.Options{Owner: owner, Repo: name, Token: token, BaseURL: cmp.Or(opts.GitHubAPIURL, os.Getenv("GITHUB_API_URL"))})
	if err != nil {
		return nil, usageErrorf("%v", err)
	}
	return f, nil
}

// targetURL links the status to the Actions run that posted it.
func (opts *reviewOptions) targetURL() string {
	if opts.TargetURL != "" {
		return opts.TargetURL
	}
	server, repo, run := os.Getenv("GITHUB_SERVER_URL"), os.Getenv("GITHUB_REPOSITORY"), os.Getenv("GITHUB_RUN_ID")
	if server == "" || repo == "" || run == "" {
		return ""
	}
	return server + "/" + repo + "/actions/runs/" + run
}
