package githubtest

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Merge merges open pull request number as GitHub's merge button does and
// returns the commit its base branch then points at; it fails the test
// when the merge is not possible.
func (s *Server) Merge(t testing.TB, number int) string {
	t.Helper()
	sha, err := s.TryMerge(t.Context(), number)
	if err != nil {
		t.Fatal(err)
	}
	return sha
}

// TryMerge merges open pull request number in the backing repository: a
// fast-forward of the base branch when it is an ancestor of the head, a
// merge commit (git merge-tree) otherwise. The base branch only moves if
// nobody moved it meanwhile. It returns the commit the base branch then
// points at, or an error naming the conflicting files, leaving everything
// as it was.
func (s *Server) TryMerge(ctx context.Context, number int) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if number < 1 || number > len(s.pulls) {
		return "", fmt.Errorf("githubtest: no pull request #%d", number)
	}
	p := s.pulls[number-1]
	if p.State != "open" {
		return "", fmt.Errorf("githubtest: pull request #%d is %s", number, p.State)
	}
	head, err := s.branchCommit(ctx, p.Head)
	if err != nil {
		return "", fmt.Errorf("githubtest: pull request #%d: head branch %s: %w", number, p.Head, err)
	}
	base, err := s.branchCommit(ctx, p.Base)
	if err != nil {
		return "", fmt.Errorf("githubtest: pull request #%d: base branch %s: %w", number, p.Base, err)
	}
	merged, err := s.merge(ctx, p, base, head)
	if err != nil {
		return "", err
	}
	now := time.Now()
	p.HeadSHA, p.BaseSHA = head, base
	p.State, p.Merged, p.MergeCommitSHA = "closed", true, merged
	p.MergedAt, p.ClosedAt, p.UpdatedAt = now, now, now
	return merged, nil
}

// merge moves p's base branch from base to include head and returns where
// it now points.
func (s *Server) merge(ctx context.Context, p *PR, base, head string) (string, error) {
	contained, err := s.isAncestor(ctx, head, base)
	if err != nil || contained {
		// Already in the base branch: GitHub marks such a pull request
		// merged without a new commit.
		return base, err
	}
	to := head
	ff, err := s.isAncestor(ctx, base, head)
	if err != nil {
		return "", err
	}
	if !ff {
		if to, err = s.mergeCommit(ctx, p, base, head); err != nil {
			return "", err
		}
	}
	why := "githubtest: merge pull request #" + strconv.Itoa(p.Number)
	if err := s.moveBranch(ctx, p.Base, to, base, why); err != nil {
		return "", fmt.Errorf("githubtest: merge pull request #%d: %w", p.Number, err)
	}
	return to, nil
}

// ClosePR closes open pull request number without merging it, as a person
// would on GitHub; it fails the test for a merged or unknown one.
func (s *Server) ClosePR(t testing.TB, number int) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if number < 1 || number > len(s.pulls) {
		t.Fatalf("githubtest: no pull request #%d", number)
	}
	p := s.pulls[number-1]
	if p.Merged {
		t.Fatalf("githubtest: pull request #%d is merged", number)
	}
	if err := s.close(t.Context(), p); err != nil {
		t.Fatal(err)
	}
}

// PR returns a snapshot of pull request number, and whether it exists.
func (s *Server) PR(number int) (PR, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if number < 1 || number > len(s.pulls) {
		return PR{}, false
	}
	return s.pulls[number-1].clone(), true
}

// StatusesFor returns every status posted for commit sha, oldest first.
func (s *Server) StatusesFor(sha string) []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Status
	for _, st := range s.statuses[sha] {
		out = append(out, *st)
	}
	return out
}

// Requests returns the requests received so far, oldest first.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// CountRequests counts the requests received with method on path, such
// as "/repos/o/r/statuses/<sha>"; a leading /api/v3 is ignored on both.
func (s *Server) CountRequests(method, path string) int {
	path = strings.TrimPrefix(path, "/api/v3")
	n := 0
	for _, r := range s.Requests() {
		if r.Method == method && strings.TrimPrefix(r.Path, "/api/v3") == path {
			n++
		}
	}
	return n
}

// ExhaustRateLimit answers the next request as GitHub does when the
// token's primary rate limit is used up until reset: 403 with
// X-RateLimit-Remaining: 0.
func (s *Server) ExhaustRateLimit(reset time.Time) {
	s.inject(http.StatusForbidden, http.Header{
		"X-Ratelimit-Limit":     {"5000"},
		"X-Ratelimit-Remaining": {"0"},
		"X-Ratelimit-Used":      {"5000"},
		"X-Ratelimit-Reset":     {strconv.FormatInt(reset.Unix(), 10)},
	}, "API rate limit exceeded for user ID 1.", docRate)
}

// Throttle answers the next request as GitHub does when a secondary rate
// limit is hit: status (403 or 429) with a Retry-After header.
func (s *Server) Throttle(status int, retryAfter time.Duration) {
	s.inject(status, http.Header{"Retry-After": {strconv.Itoa(int(retryAfter.Seconds()))}},
		"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
		docRate+"#about-secondary-rate-limits")
}

func (s *Server) inject(status int, h http.Header, msg, doc string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.injected = append(s.injected, injected{status: status, header: h,
		body: errorBody{Message: msg, DocumentationURL: doc, Status: strconv.Itoa(status)}})
}
