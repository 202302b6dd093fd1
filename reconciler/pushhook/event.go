package pushhook

import (
	"net/http"
	"strings"
)

// eventHeaders name the event of a delivery, in the order they are read;
// Gitea and Forgejo also send X-GitHub-Event, with the same value.
var eventHeaders = []string{"X-GitHub-Event", "X-Forgejo-Event", "X-Gitea-Event", "X-Gitlab-Event"}

type eventKind int

const (
	eventNone   eventKind = iota // no event header
	eventPing                    // GitHub's hook check
	eventPush                    // a push of a branch or tag
	eventStatus                  // a commit status posted (GitHub's status event)
	eventOther                   // anything else: not our business
)

// eventOf classifies a delivery by its first event header.
func eventOf(h http.Header) eventKind {
	for _, name := range eventHeaders {
		if len(h.Values(name)) == 0 {
			continue
		}
		switch e := h.Get(name); {
		case strings.EqualFold(e, "ping"):
			return eventPing
		case strings.EqualFold(e, "push"), strings.EqualFold(e, "Push Hook"):
			return eventPush
		case strings.EqualFold(e, "status"):
			return eventStatus
		default:
			// GitLab's "Tag Push Hook" lands here too: tags never move a
			// branch.
			return eventOther
		}
	}
	return eventNone
}
