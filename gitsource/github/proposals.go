package github

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	gh "github.com/google/go-github/v62/github"

	"github.com/olmops/olmops/gitsource"
)

// Proposals returns the pull requests from branch head of the repository,
// newest first, in every state.
func (f *Forge) Proposals(ctx context.Context, head string) ([]gitsource.Proposal, error) {
	if head == "" {
		return nil, errors.New("github: Proposals: head is empty")
	}
	prs, err := f.pulls(ctx, head, "all")
	if err != nil {
		return nil, err
	}
	out := make([]gitsource.Proposal, 0, len(prs))
	for _, pr := range prs {
		out = append(out, *proposal(pr))
	}
	return out, nil
}

// pulls lists the pull requests from head in state, newest first, over
// every page.
func (f *Forge) pulls(ctx context.Context, head, state string) ([]*gh.PullRequest, error) {
	opts := &gh.PullRequestListOptions{
		State: state, Head: f.owner + ":" + head, Sort: "created", Direction: "desc",
		ListOptions: gh.ListOptions{PerPage: f.perPage},
	}
	var all []*gh.PullRequest
	for {
		prs, resp, err := f.client.PullRequests.List(ctx, f.owner, f.repo, opts)
		if err != nil {
			return nil, fail("GET", f.path("/pulls?head=%s", opts.Head), err)
		}
		for _, pr := range prs {
			// GitHub filters on head already; checking again keeps a
			// same-named branch of a fork out.
			if pr.GetHead().GetRef() == head {
				all = append(all, pr)
			}
		}
		// A page number that does not grow would loop forever.
		if resp.NextPage <= max(opts.Page, 1) {
			return all, nil
		}
		opts.Page = resp.NextPage
	}
}

// Propose opens a pull request of req.Head into req.Base, or updates the
// open one of req.Head: title, body and base when they differ, labels when
// they differ as sets.
func (f *Forge) Propose(ctx context.Context, req gitsource.ProposalRequest) (*gitsource.Proposal, error) {
	if req.Head == "" || req.Base == "" || req.Title == "" {
		return nil, errors.New("github: Propose: Head, Base and Title are required")
	}
	labels := normalize(req.Labels)
	open, err := f.pulls(ctx, req.Head, "open")
	if err != nil {
		return nil, err
	}
	if len(open) == 0 {
		return f.open(ctx, req, labels)
	}
	return f.update(ctx, open[0], req, labels)
}

func (f *Forge) open(ctx context.Context, req gitsource.ProposalRequest, labels []string) (*gitsource.Proposal, error) {
	pr, _, err := f.client.PullRequests.Create(ctx, f.owner, f.repo, &gh.NewPullRequest{
		Title: &req.Title, Head: &req.Head, Base: &req.Base, Body: &req.Body,
	})
	if err != nil {
		return nil, fail("POST", f.path("/pulls"), err)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("opened pull request", "number", pr.GetNumber(), "url", pr.GetHTMLURL(), "head", req.Head, "base", req.Base)
	if len(labels) > 0 {
		// A failure here leaves the pull request unlabelled; the next
		// Propose finds it open and sets the labels.
		set, _, err := f.client.Issues.AddLabelsToIssue(ctx, f.owner, f.repo, pr.GetNumber(), labels)
		if err != nil {
			return nil, fail("POST", f.path("/issues/%d/labels", pr.GetNumber()), err)
		}
		pr.Labels = set
	}
	return proposal(pr), nil
}

func (f *Forge) update(ctx context.Context, pr *gh.PullRequest, req gitsource.ProposalRequest, labels []string) (*gitsource.Proposal, error) {
	n := pr.GetNumber()
	edit, changed := &gh.PullRequest{}, false
	if pr.GetTitle() != req.Title {
		edit.Title, changed = &req.Title, true
	}
	if pr.GetBody() != req.Body {
		edit.Body, changed = &req.Body, true
	}
	if pr.GetBase().GetRef() != req.Base {
		edit.Base, changed = &gh.PullRequestBranch{Ref: &req.Base}, true
	}
	log := logr.FromContextOrDiscard(ctx).WithValues("number", n, "url", pr.GetHTMLURL())
	if changed {
		edited, _, err := f.client.PullRequests.Edit(ctx, f.owner, f.repo, n, edit)
		if err != nil {
			return nil, fail("PATCH", f.path("/pulls/%d", n), err)
		}
		pr = edited
		log.V(1).Info("updated pull request")
	}
	if !sameLabels(labelNames(pr.Labels), labels) {
		// Sent non-nil: GitHub refuses null, and [] removes every label.
		set, _, err := f.client.Issues.ReplaceLabelsForIssue(ctx, f.owner, f.repo, n, append([]string{}, labels...))
		if err != nil {
			return nil, fail("PUT", f.path("/issues/%d/labels", n), err)
		}
		pr.Labels = set
		log.V(1).Info("set pull request labels", "labels", labels)
	}
	return proposal(pr), nil
}

// Close closes the pull request p without merging it and then leaves
// comment on it, unless comment is empty. Closing a closed pull request
// again is not an error; closing a merged one is.
func (f *Forge) Close(ctx context.Context, p *gitsource.Proposal, comment string) error {
	if p == nil || p.Number <= 0 {
		return errors.New("github: Close: not a pull request (no number)")
	}
	pr, _, err := f.client.PullRequests.Edit(ctx, f.owner, f.repo, p.Number, &gh.PullRequest{State: gh.String("closed")})
	if err != nil {
		return fail("PATCH", f.path("/pulls/%d", p.Number), err)
	}
	if pr.GetMerged() {
		return fmt.Errorf("%w: github: pull request #%d was merged; it cannot be closed", gitsource.ErrForge, p.Number)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("closed pull request", "number", p.Number, "url", pr.GetHTMLURL())
	if comment == "" {
		return nil
	}
	if _, _, err := f.client.Issues.CreateComment(ctx, f.owner, f.repo, p.Number, &gh.IssueComment{Body: &comment}); err != nil {
		return fail("POST", f.path("/issues/%d/comments", p.Number), err)
	}
	return nil
}

// proposal maps a pull request: open stays open, closed is merged when
// merged_at is set (list responses carry no "merged" field) and closed
// otherwise.
func proposal(pr *gh.PullRequest) *gitsource.Proposal {
	state := gitsource.ProposalOpen
	switch {
	case pr.GetState() == "open":
	case pr.MergedAt != nil:
		state = gitsource.ProposalMerged
	default:
		state = gitsource.ProposalClosed
	}
	return &gitsource.Proposal{
		Number: pr.GetNumber(), URL: pr.GetHTMLURL(),
		Head: pr.GetHead().GetRef(), Base: pr.GetBase().GetRef(), HeadCommit: pr.GetHead().GetSHA(),
		Title: pr.GetTitle(), Body: pr.GetBody(), Labels: labelNames(pr.Labels), State: state,
	}
}

func labelNames(labels []*gh.Label) []string {
	var names []string
	for _, l := range labels {
		names = append(names, l.GetName())
	}
	return normalize(names)
}

// sameLabels compares sorted label sets as GitHub does, ignoring case.
func sameLabels(a, b []string) bool {
	lower := func(ls []string) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = strings.ToLower(l)
		}
		return normalize(out)
	}
	return slices.Equal(lower(a), lower(b))
}

// normalize sorts labels and drops empty and repeated ones.
func normalize(labels []string) []string {
	out := slices.DeleteFunc(slices.Clone(labels), func(l string) bool { return l == "" })
	slices.Sort(out)
	return slices.Compact(out)
}
