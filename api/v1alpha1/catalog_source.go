package v1alpha1

import (
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
)

// DefaultPollInterval is how often a catalog source is polled when
// olmops.yaml does not say: OLM's registryPoll examples use minutes too.
const DefaultPollInterval = 10 * time.Minute

// MinPollInterval is the shortest poll interval olmops.yaml may set.
const MinPollInterval = time.Second

// CatalogSource is the image a catalog folder is imported from, as
// `olmops catalog import` imports it, and how a Planner follows it.
type CatalogSource struct {
	// image is the catalog image reference, by tag (polled) or by digest
	// (imported once).
	Image string `json:"image"`
	// pollInterval is how often a Planner resolves image's tag to a
	// digest (one registry HEAD); a Go duration such as 10m. Defaults to
	// 10m; at least 1s.
	// +optional
	PollInterval string `json:"pollInterval,omitempty"`
	// approval: Manual (default) proposes each new content on the branch
	// olmops/import/<catalog>; Automatic commits it to the branch the
	// Planner reads.
	// +optional
	Approval Approval `json:"approval,omitempty"`
	// packages keeps only these packages of the image; empty keeps all.
	// +optional
	Packages []string `json:"packages,omitempty"`
}

// Interval is PollInterval as a duration, DefaultPollInterval when unset
// or invalid (Validate reports an invalid one).
func (s *CatalogSource) Interval() time.Duration {
	d, err := time.ParseDuration(s.PollInterval)
	if err != nil || d < MinPollInterval {
		return DefaultPollInterval
	}
	return d
}

// validate reports a source's problems under field.
func (e *fieldErrors) source(field string, s *CatalogSource) {
	if s.Image == "" {
		e.add(field+".image", "image is required")
	} else if _, err := name.ParseReference(s.Image); err != nil {
		e.add(field+".image", "%q is not an image reference: %v", s.Image, err)
	}
	if s.PollInterval != "" {
		d, err := time.ParseDuration(s.PollInterval)
		switch {
		case err != nil:
			e.add(field+".pollInterval", "%q is not a duration such as 10m", s.PollInterval)
		case d < MinPollInterval:
			e.add(field+".pollInterval", "%s is shorter than %s", d, MinPollInterval)
		}
	}
	switch s.Approval {
	case "", ApprovalAutomatic, ApprovalManual:
	default:
		e.add(field+".approval", "must be %s or %s, not %q", ApprovalAutomatic, ApprovalManual, s.Approval)
	}
	for i, p := range s.Packages {
		if p == "" {
			e.add(fmt.Sprintf("%s.packages[%d]", field, i), "package name is required")
		}
	}
}
