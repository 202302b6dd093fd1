package planning

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	gh "github.com/google/go-github/v62/github"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/gitsource/github"
)

// maxRefused is how many passes in a row may end in a refused push (or
// proposal) before the Planner stalls: with the backoff from one second,
// four retries within about fifteen seconds ride out a protection rule
// being edited, and after that only a person helps. A stalled Planner
// tries again at its interval, on a push to its branch or a spec change.
const maxRefused = 5

// refused tells a push or proposal the remote refused for good: branch
// protection (GitHub's GH006 and GH013, a pre-receive hook that declined
// it), or credentials without write access (401, 403 that is not a rate
// limit). Retrying at once cannot help; a rate limit or a lost race can.
func refused(err error) bool {
	if err == nil || errors.Is(err, github.ErrRateLimited) || errors.Is(err, gitsource.ErrNonFastForward) {
		return false
	}
	if errors.Is(err, gitsource.ErrAuth) {
		return true
	}
	var resp *gh.ErrorResponse
	if errors.As(err, &resp) && resp.Response != nil &&
		(resp.Response.StatusCode == http.StatusForbidden || resp.Response.StatusCode == http.StatusUnauthorized) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"protected branch", "gh006", "gh013", "hook declined", "rule violations"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// pushFailed is the outcome of a pass whose push or proposal failed:
// retried with backoff, except a refusal met maxRefused times in a row,
// which stalls (PushRefused) until the interval.
func (r *Reconciler) pushFailed(p *pass, err error) *outcome {
	// NumRequeues counts this Planner's failed passes since the last
	// one that succeeded or stalled; this one is not counted yet.
	if refused(err) && r.backoff().NumRequeues(p.req)+1 >= maxRefused {
		return &outcome{result: resultStalled, reason: v1alpha1.PushRefusedReason,
			err: fmt.Errorf("%w; refused %d passes in a row: stalled until the interval, a push or a spec change (check branch protection and the token's permissions)", err, maxRefused)}
	}
	return retry(v1alpha1.ProposeFailedReason, err)
}
