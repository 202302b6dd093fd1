package githubtest

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// PR is a snapshot of a pull request of the fake.
type PR struct {
	// Number is the pull request (and issue) number, from 1.
	Number int
	// Title and Body as last set; Body is "" when unset.
	Title, Body string
	// Head and Base are branch names.
	Head, Base string
	// HeadSHA and BaseSHA are the branches' commits: current while the
	// pull request is open, as they were when it was closed or merged
	// after that.
	HeadSHA, BaseSHA string
	// State is "open" or "closed", as GitHub says it; a merged pull
	// request is closed and Merged.
	State string
	// Merged is set by Merge; MergeCommitSHA is then the commit the base
	// branch moved to.
	Merged         bool
	MergeCommitSHA string
	// Labels in the order they were added.
	Labels []string
	// Comments' bodies, oldest first.
	Comments []string
	// CreatedAt, UpdatedAt, ClosedAt and MergedAt are zero when they did
	// not happen.
	CreatedAt, UpdatedAt, ClosedAt, MergedAt time.Time
}

func (p *PR) clone() PR {
	c := *p
	c.Labels = slices.Clone(p.Labels)
	c.Comments = slices.Clone(p.Comments)
	return c
}

// refresh reads an open pull request's branches from git, as GitHub
// follows pushes to them; a closed one keeps what it had.
func (s *Server) refresh(ctx context.Context, p *PR) error {
	if p.State != "open" {
		return nil
	}
	for _, b := range []struct {
		branch string
		sha    *string
	}{{p.Head, &p.HeadSHA}, {p.Base, &p.BaseSHA}} {
		sha, err := s.branchCommit(ctx, b.branch)
		switch {
		case errors.Is(err, errNoRef):
			// A deleted branch: keep the last commit seen.
		case err != nil:
			return err
		default:
			*b.sha = sha
		}
	}
	return nil
}

// listPulls answers GET /repos/{owner}/{repo}/pulls.
func (s *Server) listPulls(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	state := cmp.Or(q.Get("state"), "open")
	sortBy := cmp.Or(q.Get("sort"), "created")
	dir := q.Get("direction")
	if dir == "" {
		dir = "asc"
		if sortBy == "created" {
			dir = "desc"
		}
	}
	switch {
	case state != "open" && state != "closed" && state != "all":
		invalid(w, docPulls, fieldError{Resource: "PullRequest", Field: "state", Code: "invalid"})
		return
	case sortBy != "created" && sortBy != "updated":
		invalid(w, docPulls, fieldError{Resource: "PullRequest", Field: "sort", Code: "invalid"})
		return
	case dir != "asc" && dir != "desc":
		invalid(w, docPulls, fieldError{Resource: "PullRequest", Field: "direction", Code: "invalid"})
		return
	}
	var found []*PR
	for _, p := range s.pulls {
		if (state == "all" || p.State == state) && s.headMatches(p, q.Get("head")) && (q.Get("base") == "" || q.Get("base") == p.Base) {
			found = append(found, p)
		}
	}
	slices.SortStableFunc(found, func(a, b *PR) int {
		c := a.CreatedAt.Compare(b.CreatedAt)
		if sortBy == "updated" {
			c = a.UpdatedAt.Compare(b.UpdatedAt)
		}
		if c == 0 {
			c = a.Number - b.Number
		}
		if dir == "desc" {
			return -c
		}
		return c
	})
	lo, hi := s.paginate(w, r, len(found))
	out := []pullJSON{}
	for _, p := range found[lo:hi] {
		if err := s.refresh(ctx, p); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error(), docREST)
			return
		}
		out = append(out, s.pullJSON(p))
	}
	writeJSON(w, http.StatusOK, out)
}

// headMatches applies the head filter, "user:ref-name" or "user".
func (s *Server) headMatches(p *PR, head string) bool {
	if head == "" {
		return true
	}
	user, ref, hasRef := strings.Cut(head, ":")
	return strings.EqualFold(user, s.opts.Owner) && (!hasRef || ref == p.Head)
}

// ownBranch takes the head of a new pull request, "branch" or
// "owner:branch"; pull requests from forks are not supported.
func (s *Server) ownBranch(head string) (string, bool) {
	user, ref, hasUser := strings.Cut(head, ":")
	if !hasUser {
		return head, true
	}
	return ref, strings.EqualFold(user, s.opts.Owner)
}

// openPull is the open pull request of head into base, or nil.
func (s *Server) openPull(head, base string) *PR {
	for _, p := range s.pulls {
		if p.State == "open" && p.Head == head && p.Base == base {
			return p
		}
	}
	return nil
}

// createPull answers POST /repos/{owner}/{repo}/pulls.
func (s *Server) createPull(ctx context.Context, w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title string `json:"title"`
		Head  string `json:"head"`
		Base  string `json:"base"`
		Body  string `json:"body"`
		Draft bool   `json:"draft"`
	}
	if !decode(w, r, &in) {
		return
	}
	var errs []fieldError
	for _, f := range []struct{ name, value string }{{"title", in.Title}, {"head", in.Head}, {"base", in.Base}} {
		if f.value == "" {
			errs = append(errs, fieldError{Resource: "PullRequest", Field: f.name, Code: "missing_field"})
		}
	}
	if len(errs) > 0 {
		invalid(w, docPulls, errs...)
		return
	}
	head, own := s.ownBranch(in.Head)
	baseSHA, baseErr := s.branchCommit(ctx, in.Base)
	headSHA, headErr := s.branchCommit(ctx, head)
	if err := errors.Join(baseErr, headErr); err != nil && !errors.Is(err, errNoRef) {
		writeError(w, http.StatusInternalServerError, err.Error(), docREST)
		return
	}
	if baseErr != nil {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"})
	}
	if headErr != nil || !own {
		errs = append(errs, fieldError{Resource: "PullRequest", Field: "head", Code: "invalid"})
	}
	if len(errs) > 0 {
		invalid(w, docPulls, errs...)
		return
	}
	if s.openPull(head, in.Base) != nil {
		invalid(w, docPulls, fieldError{Resource: "PullRequest", Code: "custom",
			Message: "A pull request already exists for " + s.opts.Owner + ":" + head + "."})
		return
	}
	merged, err := s.isAncestor(ctx, headSHA, baseSHA)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), docREST)
		return
	}
	if merged {
		invalid(w, docPulls, fieldError{Resource: "PullRequest", Code: "custom",
			Message: "No commits between " + in.Base + " and " + head})
		return
	}
	now := time.Now()
	p := &PR{Number: len(s.pulls) + 1, Title: in.Title, Body: in.Body, Head: head, Base: in.Base,
		HeadSHA: headSHA, BaseSHA: baseSHA, State: "open", CreatedAt: now, UpdatedAt: now}
	s.pulls = append(s.pulls, p)
	w.Header().Set("Location", s.apiURL("/pulls/"+strconv.Itoa(p.Number)))
	writeJSON(w, http.StatusCreated, s.fullPullJSON(p))
}
