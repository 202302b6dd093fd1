package gitsource

import (
	"context"
	"time"
)

// DatedStatus is a commit's latest status of a context and when the forge
// recorded it.
type DatedStatus struct {
	Status
	// Since is when the status was posted. olmops posts a status only
	// when it changes, so the status has stood unchanged since. Zero when
	// the forge does not say (a git note written before it did).
	Since time.Time
}

// StatusDater is a Forge that tells when each latest status was posted:
// what promotion between clusters measures soak times with.
type StatusDater interface {
	// DatedStatuses returns what Statuses returns, each with its time.
	DatedStatuses(ctx context.Context, commit string) ([]DatedStatus, error)
}

var _ StatusDater = (*GitForge)(nil)
