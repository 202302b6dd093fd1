package github

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/go-logr/logr"
	gh "github.com/google/go-github/v62/github"

	"github.com/olmops/olmops/gitsource"
)

var fullHash = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)

// SetStatus posts st on commit, its description cut to
// gitsource.MaxStatusDescription characters, unless the commit's latest
// status for st.Context already has the same state, description and
// target URL: GitHub keeps at most 1000 statuses per commit and context,
// so an unchanged status is never posted again.
func (f *Forge) SetStatus(ctx context.Context, commit string, st gitsource.Status) error {
	if err := checkStatus(commit, st); err != nil {
		return err
	}
	// GitHub stores text as valid UTF-8; compare with what it will hold.
	st.Context = strings.ToValidUTF8(st.Context, "\uFFFD")
	st.TargetURL = strings.ToValidUTF8(st.TargetURL, "\uFFFD")
	st.Description = gitsource.TruncateDescription(strings.ToValidUTF8(st.Description, "\uFFFD"))
	current, err := f.Statuses(ctx, commit)
	if err != nil {
		return err
	}
	log := logr.FromContextOrDiscard(ctx).WithValues("commit", commit, "context", st.Context, "state", st.State)
	if slices.Contains(current, st) {
		log.V(1).Info("commit status unchanged; not posting it again")
		return nil
	}
	_, _, err = f.client.Repositories.CreateStatus(ctx, f.owner, f.repo, commit, &gh.RepoStatus{
		State: gh.String(string(st.State)), Context: &st.Context,
		Description: optional(st.Description), TargetURL: optional(st.TargetURL),
	})
	if err != nil {
		return fail("POST", f.path("/statuses/%s", commit), err)
	}
	log.V(1).Info("set commit status")
	return nil
}

func checkStatus(commit string, st gitsource.Status) error {
	switch {
	case !fullHash.MatchString(commit):
		return fmt.Errorf("github: SetStatus: commit %q is not a full lower-case hex hash", commit)
	case st.Context == "":
		return errors.New("github: SetStatus: Context is empty")
	case !slices.Contains([]gitsource.StatusState{gitsource.StatusPending, gitsource.StatusSuccess, gitsource.StatusFailure, gitsource.StatusError}, st.State):
		return fmt.Errorf("github: SetStatus: state %q is not pending, success, failure or error", st.State)
	}
	return nil
}

// Statuses returns the latest status of each context on commit (GitHub's
// combined status, over every page), sorted by context.
func (f *Forge) Statuses(ctx context.Context, commit string) ([]gitsource.Status, error) {
	dated, err := f.DatedStatuses(ctx, commit)
	if err != nil {
		return nil, err
	}
	out := make([]gitsource.Status, len(dated))
	for i, d := range dated {
		out[i] = d.Status
	}
	return out, nil
}

var _ gitsource.StatusDater = (*Forge)(nil)

// DatedStatuses is Statuses with the time GitHub created each status.
func (f *Forge) DatedStatuses(ctx context.Context, commit string) ([]gitsource.DatedStatus, error) {
	if commit == "" {
		return nil, errors.New("github: Statuses: commit is empty")
	}
	opts := &gh.ListOptions{PerPage: f.perPage}
	seen := map[string]bool{}
	var out []gitsource.DatedStatus
	for {
		combined, resp, err := f.client.Repositories.GetCombinedStatus(ctx, f.owner, f.repo, commit, opts)
		if err != nil {
			return nil, fail("GET", f.path("/commits/%s/status", commit), err)
		}
		for _, s := range combined.Statuses {
			// A status posted between two pages shifts the pages; the
			// first one seen of a context is the newest.
			if seen[s.GetContext()] {
				continue
			}
			seen[s.GetContext()] = true
			out = append(out, gitsource.DatedStatus{Status: gitsource.Status{
				Context: s.GetContext(), State: gitsource.StatusState(s.GetState()),
				Description: s.GetDescription(), TargetURL: s.GetTargetURL(),
			}, Since: s.GetCreatedAt().Time})
		}
		if resp.NextPage <= max(opts.Page, 1) {
			break
		}
		opts.Page = resp.NextPage
	}
	slices.SortFunc(out, func(a, b gitsource.DatedStatus) int { return strings.Compare(a.Context, b.Context) })
	return out, nil
}

func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
