package gitsource

import (
	"context"
	"errors"
	"unicode/utf8"
)

// Forge is where plans are proposed and operators' states are reported:
// pull requests and commit statuses on GitHub, or plain branches and git
// notes on any git server. A proposal is a branch asking to be merged into
// a base branch; merging it is the approval, closing it unmerged the
// rejection.
type Forge interface {
	// Proposals returns the proposals whose head is the branch head, the
	// newest first; none is not an error.
	Proposals(ctx context.Context, head string) ([]Proposal, error)
	// Propose opens a proposal of req.Head into req.Base, or, when one is
	// open for req.Head already, updates its title, body and labels. The
	// head branch must have been pushed.
	Propose(ctx context.Context, req ProposalRequest) (*Proposal, error)
	// Close closes an open proposal without merging it, leaving comment
	// on it where the forge can.
	Close(ctx context.Context, p *Proposal, comment string) error
	// SetStatus records st on commit (a full hex hash). Setting what the
	// commit already has for st.Context is a no-op.
	SetStatus(ctx context.Context, commit string, st Status) error
	// Statuses returns the latest status of each context on commit,
	// sorted by context.
	Statuses(ctx context.Context, commit string) ([]Status, error)
}

// Commenter is a Forge where people and olmops talk on a proposal: a pull
// request's comments. The git-only forge has none.
type Commenter interface {
	// Comments returns the bodies of the comments on p, oldest first.
	Comments(ctx context.Context, p *Proposal) ([]string, error)
	// Comment leaves body as a new comment on p.
	Comment(ctx context.Context, p *Proposal, body string) error
}

// FileLinker is a Forge with a web page for each file at each commit,
// which statuses link to.
type FileLinker interface {
	// FileURL is the page of path (slash-separated, from the repository
	// root) as it is at commit.
	FileURL(commit, path string) string
}

// ProposalState is where a proposal stands.
type ProposalState string

// Proposal states.
const (
	// ProposalOpen waits for review.
	ProposalOpen ProposalState = "open"
	// ProposalMerged was merged into its base: approved.
	ProposalMerged ProposalState = "merged"
	// ProposalClosed was closed without merging: rejected.
	ProposalClosed ProposalState = "closed"
)

// Proposal is a pull request, or a plan branch on a git-only forge.
type Proposal struct {
	// Number identifies the proposal on the forge (the pull request
	// number); 0 on a git-only forge.
	Number int
	// URL is where a person reads the proposal; may be empty.
	URL string
	// Head is the branch proposed, Base the branch it merges into.
	Head, Base string
	// HeadCommit is the full hash of Head's commit as proposed.
	HeadCommit string
	// Title and Body describe the change.
	Title, Body string
	// Labels on the proposal, sorted.
	Labels []string
	// State is open, merged or closed.
	State ProposalState
}

// ProposalRequest asks a Forge to open or update a proposal.
type ProposalRequest struct {
	// Head is the branch to merge, Base the branch to merge it into.
	Head, Base string
	// Title and Body describe the change.
	Title, Body string
	// Labels to set on the proposal.
	Labels []string
}

// StatusState is the state of a commit status, in GitHub's words.
type StatusState string

// Status states.
const (
	StatusPending StatusState = "pending"
	StatusSuccess StatusState = "success"
	StatusFailure StatusState = "failure"
	StatusError   StatusState = "error"
)

// MaxStatusDescription is the longest description GitHub accepts.
const MaxStatusDescription = 140

// TruncateDescription cuts s to MaxStatusDescription characters, marking a
// cut with "…"; it never splits a character.
func TruncateDescription(s string) string {
	if utf8.RuneCountInString(s) <= MaxStatusDescription {
		return s
	}
	return string([]rune(s)[:MaxStatusDescription-1]) + "…"
}

// Status is one commit status: a context's state on a commit.
type Status struct {
	// Context names what the status is about, such as
	// olmops/prod-east/operators/etcd.
	Context string `json:"context"`
	// State is pending, success, failure or error.
	State StatusState `json:"state"`
	// Description is at most MaxStatusDescription characters; see
	// docs/statuses.md for the grammar olmops writes.
	Description string `json:"description,omitempty"`
	// TargetURL links to details; may be empty.
	TargetURL string `json:"targetURL,omitempty"`
}

// ErrForge reports a forge that refused a request or could not be
// reached; the wrapped error says which and why.
var ErrForge = errors.New("forge request failed")
