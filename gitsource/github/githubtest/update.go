package githubtest

import (
	"context"
	"errors"
	"net/http"
	"time"
)

// pullUpdate is the body of PATCH /repos/{owner}/{repo}/pulls/{n}.
type pullUpdate struct {
	Title *string `json:"title"`
	Body  *string `json:"body"`
	State *string `json:"state"`
	Base  *string `json:"base"`
}

// updatePull answers PATCH /repos/{owner}/{repo}/pulls/{n}.
func (s *Server) updatePull(ctx context.Context, w http.ResponseWriter, r *http.Request, p *PR) {
	var in pullUpdate
	if !decode(w, r, &in) {
		return
	}
	if ferr, err := s.checkUpdate(ctx, p, in); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), docREST)
		return
	} else if ferr != nil {
		invalid(w, docPulls, *ferr)
		return
	}
	changed := false
	set := func(dst *string, v *string) {
		if v != nil && *v != *dst {
			*dst, changed = *v, true
		}
	}
	set(&p.Title, in.Title)
	set(&p.Body, in.Body)
	set(&p.Base, in.Base)
	switch {
	case in.State == nil || *in.State == p.State:
	case *in.State == "closed":
		if err := s.close(ctx, p); err != nil {
			writeError(w, http.StatusInternalServerError, err.Error(), docREST)
			return
		}
	default:
		p.State, p.ClosedAt, changed = "open", time.Time{}, true
	}
	if changed {
		p.UpdatedAt = time.Now()
	}
	if err := s.refresh(ctx, p); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), docREST)
		return
	}
	writeJSON(w, http.StatusOK, s.fullPullJSON(p))
}

// checkUpdate validates in against p like GitHub: a field error for a
// request GitHub refuses, an error when git fails.
func (s *Server) checkUpdate(ctx context.Context, p *PR, in pullUpdate) (*fieldError, error) {
	custom := func(msg string) *fieldError {
		return &fieldError{Resource: "PullRequest", Code: "custom", Message: msg}
	}
	switch {
	case in.State != nil && *in.State != "open" && *in.State != "closed":
		return &fieldError{Resource: "PullRequest", Field: "state", Code: "invalid"}, nil
	case in.Title != nil && *in.Title == "":
		return &fieldError{Resource: "PullRequest", Field: "title", Code: "missing_field"}, nil
	case in.Base != nil && *in.Base != p.Base && p.State == "closed":
		return custom("Cannot change base branch of closed pull request."), nil
	}
	if in.Base != nil && *in.Base != p.Base {
		if _, err := s.branchCommit(ctx, *in.Base); errors.Is(err, errNoRef) {
			return &fieldError{Resource: "PullRequest", Field: "base", Code: "invalid"}, nil
		} else if err != nil {
			return nil, err
		}
	}
	if in.State == nil || *in.State != "open" || p.State == "open" {
		return nil, nil
	}
	if p.Merged {
		return custom("state cannot be changed. The pull request has been merged."), nil
	}
	if _, err := s.branchCommit(ctx, p.Head); errors.Is(err, errNoRef) {
		return custom("state cannot be changed. The " + p.Head + " branch has been deleted."), nil
	} else if err != nil {
		return nil, err
	}
	if s.openPull(p.Head, p.Base) != nil {
		return custom("A pull request already exists for " + s.opts.Owner + ":" + p.Head + "."), nil
	}
	return nil, nil
}

// close closes open pull request p without merging it, keeping its
// branches' commits as they are now.
func (s *Server) close(ctx context.Context, p *PR) error {
	if p.State != "open" {
		return nil
	}
	if err := s.refresh(ctx, p); err != nil {
		return err
	}
	now := time.Now()
	p.State, p.ClosedAt, p.UpdatedAt = "closed", now, now
	return nil
}
