package review

import (
	"github.com/olmops/olmops/commitstatus"
	"github.com/olmops/olmops/gitsource"
)

// StatusContext is the commit status a review posts on the head.
const StatusContext = commitstatus.Prefix + "review"

// Status is the review as one commit status: failure when it fails,
// success otherwise, with the summary line as description and a link to
// the details (the CI job), which may be empty.
func (r *Report) Status(failOnWarnings bool, targetURL string) gitsource.Status {
	st := gitsource.Status{Context: StatusContext, State: gitsource.StatusSuccess, Description: gitsource.TruncateDescription(r.Summary()), TargetURL: targetURL}
	if r.Failed(failOnWarnings) {
		st.State = gitsource.StatusFailure
	}
	return st
}
