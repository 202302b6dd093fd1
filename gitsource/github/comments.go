package github

import (
	"context"
	"errors"

	gh "github.com/google/go-github/v62/github"

	"github.com/olmops/olmops/gitsource"
)

// maxCommentPages bounds the pages Comments reads: a pull request with more
// than this many hundred comments is read in part, newest pages unread.
const maxCommentPages = 10

// Comments returns the bodies of the comments on pull request p, oldest
// first.
func (f *Forge) Comments(ctx context.Context, p *gitsource.Proposal) ([]string, error) {
	if p == nil || p.Number <= 0 {
		return nil, errors.New("github: Comments: not a pull request (no number)")
	}
	var out []string
	opts := &gh.IssueListCommentsOptions{ListOptions: gh.ListOptions{PerPage: 100}}
	for range maxCommentPages {
		cs, resp, err := f.client.Issues.ListComments(ctx, f.owner, f.repo, p.Number, opts)
		if err != nil {
			return nil, fail("GET", f.path("/issues/%d/comments", p.Number), err)
		}
		for _, c := range cs {
			out = append(out, c.GetBody())
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	return out, nil
}

// Comment leaves body as a comment on pull request p.
func (f *Forge) Comment(ctx context.Context, p *gitsource.Proposal, body string) error {
	if p == nil || p.Number <= 0 {
		return errors.New("github: Comment: not a pull request (no number)")
	}
	if _, _, err := f.client.Issues.CreateComment(ctx, f.owner, f.repo, p.Number, &gh.IssueComment{Body: &body}); err != nil {
		return fail("POST", f.path("/issues/%d/comments", p.Number), err)
	}
	return nil
}

var _ gitsource.Commenter = (*Forge)(nil)
