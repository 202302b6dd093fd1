package githubtest

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"
)

// Status is a commit status the fake received.
type Status struct {
	ID                                     int64
	State, Description, TargetURL, Context string
	CreatedAt                              time.Time
}

// GitHub's limits on commit statuses.
const (
	maxDescription        = 140
	maxStatusesPerContext = 1000
)

var fullSHA = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// createStatus answers POST /repos/{owner}/{repo}/statuses/{sha}.
func (s *Server) createStatus(ctx context.Context, w http.ResponseWriter, r *http.Request, sha string) {
	var in struct {
		State       string `json:"state"`
		TargetURL   string `json:"target_url"`
		Description string `json:"description"`
		Context     string `json:"context"`
	}
	if !decode(w, r, &in) {
		return
	}
	if !fullSHA.MatchString(sha) {
		invalid(w, docStatuses, fieldError{Resource: "Status", Field: "sha", Code: "custom", Message: "sha must be a 40 character SHA1"})
		return
	}
	if ok, err := s.commitExists(ctx, sha); err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), docREST)
		return
	} else if !ok {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+sha, docStatuses)
		return
	}
	in.Context = cmp.Or(in.Context, "default")
	var errs []fieldError
	if !slices.Contains([]string{"error", "failure", "pending", "success"}, in.State) {
		errs = append(errs, fieldError{Resource: "Status", Field: "state", Code: "custom", Message: "state is not included in the list"})
	}
	if utf8.RuneCountInString(in.Description) > maxDescription {
		errs = append(errs, fieldError{Resource: "Status", Field: "description", Code: "custom",
			Message: "description is too long (maximum is 140 characters)"})
	}
	if s.countContext(sha, in.Context) >= maxStatusesPerContext {
		errs = append(errs, fieldError{Resource: "Status", Code: "custom",
			Message: "This SHA and context has reached the maximum number of statuses."})
	}
	if len(errs) > 0 {
		invalid(w, docStatuses, errs...)
		return
	}
	st := &Status{ID: s.newID(), State: in.State, Description: in.Description, TargetURL: in.TargetURL,
		Context: in.Context, CreatedAt: time.Now()}
	s.statuses[sha] = append(s.statuses[sha], st)
	writeJSON(w, http.StatusCreated, s.statusJSON(st))
}

func (s *Server) countContext(sha, context string) int {
	n := 0
	for _, st := range s.statuses[sha] {
		if st.Context == context {
			n++
		}
	}
	return n
}

// commitExists asks git once per commit: commits never go away here.
func (s *Server) commitExists(ctx context.Context, sha string) (bool, error) {
	if s.commits[sha] {
		return true, nil
	}
	_, err := s.commit(ctx, sha)
	if errors.Is(err, errNoRef) {
		return false, nil
	}
	s.commits[sha] = err == nil
	return err == nil, err
}

// combinedStatus answers GET /repos/{owner}/{repo}/commits/{ref}/status:
// the latest status of each context, newest first, paginated, and the
// state they add up to.
func (s *Server) combinedStatus(ctx context.Context, w http.ResponseWriter, r *http.Request, ref string) {
	sha, err := s.resolve(ctx, ref)
	if errors.Is(err, errNoRef) {
		writeError(w, http.StatusUnprocessableEntity, "No commit found for SHA: "+ref, docStatuses)
		return
	}
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error(), docREST)
		return
	}
	latest := s.latest(sha)
	lo, hi := s.paginate(w, r, len(latest))
	page := []map[string]any{}
	for _, st := range latest[lo:hi] {
		page = append(page, s.statusJSON(st))
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"state": combine(latest), "statuses": page, "sha": sha, "total_count": len(latest),
		"repository": s.repoJSON(), "commit_url": s.apiURL("/commits/" + sha),
		"url": s.apiURL("/commits/" + sha + "/status"),
	})
}

// resolve takes a commit hash, branch or tag name, as GitHub's {ref}.
func (s *Server) resolve(ctx context.Context, ref string) (string, error) {
	if fullSHA.MatchString(ref) {
		// Known commits are remembered: a planner asks for the statuses
		// of every plan's commit each pass.
		switch ok, err := s.commitExists(ctx, ref); {
		case err != nil:
			return "", err
		case !ok:
			return "", fmt.Errorf("%w: %s", errNoRef, ref)
		}
		return ref, nil
	}
	if sha, err := s.branchCommit(ctx, ref); !errors.Is(err, errNoRef) {
		return sha, err
	}
	return s.commit(ctx, "refs/tags/"+ref)
}

// latest is the newest status of each context on sha, newest first.
func (s *Server) latest(sha string) []*Status {
	all := s.statuses[sha]
	seen := map[string]bool{}
	var out []*Status
	for i := len(all) - 1; i >= 0; i-- {
		if !seen[all[i].Context] {
			seen[all[i].Context] = true
			out = append(out, all[i])
		}
	}
	return out
}

// combine is GitHub's combined state: failure if any failed or errored,
// else pending if any is pending or there are none, else success.
func combine(latest []*Status) string {
	state := "success"
	if len(latest) == 0 {
		state = "pending"
	}
	for _, st := range latest {
		switch st.State {
		case "error", "failure":
			return "failure"
		case "pending":
			state = "pending"
		}
	}
	return state
}

func (s *Server) statusJSON(st *Status) map[string]any {
	id := strconv.FormatInt(st.ID, 10)
	return map[string]any{
		"url": s.apiURL("/statuses/" + id), "avatar_url": nil, "id": st.ID, "node_id": "SC_" + id,
		"state": st.State, "description": optString(st.Description), "target_url": optString(st.TargetURL),
		"context": st.Context, "created_at": timestamp(st.CreatedAt), "updated_at": timestamp(st.CreatedAt),
		"creator": s.viewer(),
	}
}
