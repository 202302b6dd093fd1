package pushhook

import (
	"context"
	"fmt"
	"net/http"

	"github.com/go-logr/logr"
)

// Status is what a verified commit status event says: a status was
// posted on a commit of a repository. It is a hint to read the statuses
// again, never evidence itself: what counts is what the forge's API
// returns when the receiver reads them.
type Status struct {
	// URLs are every address the payload gives for the repository, as
	// Push.URLs.
	URLs []string
	// Commit is the commit the status was posted on.
	Commit string
	// Context names the status, such as olmops/staging/etcd-system/etcd.
	Context string
	// State is the status's state as the forge wrote it: pending,
	// success, failure or error.
	State string
}

// statusOf reads what a status payload says.
func statusOf(pl pushPayload) (Status, error) {
	if pl.Context == "" {
		return Status{}, refuse(http.StatusBadRequest, "status payload has no context")
	}
	s := Status{URLs: pl.urls(), Commit: pl.SHA, Context: pl.Context, State: pl.State}
	if len(s.URLs) == 0 {
		return Status{}, refuse(http.StatusBadRequest, "status payload names no repository URL")
	}
	return s, nil
}

// commitStatus hands a verified status event to the status receiver.
func (h *handler) commitStatus(ctx context.Context, pl pushPayload) (int, string) {
	s, err := statusOf(pl)
	if err != nil {
		return reply(err)
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("push webhook: commit status", "urls", s.URLs, "context", s.Context, "state", s.State)
	switch n := h.status(ctx, s); n {
	case 0:
		return http.StatusOK, "nothing waits on that status"
	case 1:
		return http.StatusAccepted, "queued 1 follower"
	default:
		return http.StatusAccepted, fmt.Sprintf("queued %d followers", n)
	}
}
