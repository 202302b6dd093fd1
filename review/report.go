package review

import (
	"strconv"

	"github.com/olmops/olmops/catalog/property"
)

// Pos is a file and line of the repository, relative to its root.
type Pos struct {
	File string `json:"file"`
	// Line is 1-based; 0 for the whole file.
	Line int `json:"line,omitempty"`
}

func (p Pos) String() string {
	if p.Line <= 0 {
		return p.File
	}
	return p.File + ":" + strconv.Itoa(p.Line)
}

func posOf(p property.Pos) Pos { return Pos{File: p.File, Line: p.Line} }

// Severity ranks a finding: errors fail a review, warnings fail it when
// asked to, notices only inform.
type Severity string

// Severities, as GitHub's workflow commands name them.
const (
	Error   Severity = "error"
	Warning Severity = "warning"
	Notice  Severity = "notice"
)

// Status says how a problem relates to the base.
type Status string

// Statuses.
const (
	// New: only the head has it. New errors fail the review.
	New Status = "new"
	// Present: the base has it already ("already present").
	Present Status = "present"
	// Fixed: only the base has it.
	Fixed Status = "fixed"
)

// Commit names one side of a review.
type Commit struct {
	// Rev is the revision as given (a branch, a hash).
	Rev string `json:"rev"`
	// Hash is the full commit hash.
	Hash string `json:"hash"`
}

// Report is what a review found.
type Report struct {
	Base Commit `json:"base"`
	Head Commit `json:"head"`
	// Problems are the validation problems of both sides, head's new ones
	// first.
	Problems []Problem `json:"problems"`
	// Packages are the catalog packages the head adds, removes or changes.
	Packages []PackageChange `json:"packages"`
	// Impact lists the subscriptions whose resolution, plan or problems
	// differ between base and head.
	Impact []Impact `json:"impact"`
	// Unchanged counts the subscriptions that resolve alike on both sides.
	Unchanged int `json:"unchanged"`
	// Waves order the impacted clusters by olmops.yaml's promotion, the
	// first reached first; none when no impacted cluster follows another.
	Waves []Wave `json:"waves,omitempty"`
	// Plans is the plan check of the head; nil when it did not run.
	Plans *PlanCheck `json:"plans,omitempty"`
	// Granted are the plans of Automatic subscriptions this change commits
	// that grant more power than the base's.
	Granted []GrantedPlan `json:"granted,omitempty"`
	// Notes say what the review could not look at, and why.
	Notes []string `json:"notes,omitempty"`

	// base and head are kept for the plan check, which runs after.
	base, head *side
	only       []string
}

// Problem is one validation problem.
type Problem struct {
	Status Status `json:"status"`
	// Source is the file group the problem is in: "olmops.yaml",
	// "catalog operatorhub", "cluster prod-east".
	Source  string `json:"source"`
	Pos     Pos    `json:"pos"`
	Package string `json:"package,omitempty"`
	Channel string `json:"channel,omitempty"`
	Bundle  string `json:"bundle,omitempty"`
	Message string `json:"message"`
	// Warning marks what opm accepts but a person should see (a key
	// written twice, a CEL rule that does not compile): a new one is a
	// warning, not an error.
	Warning bool `json:"warning,omitempty"`
}

// Action is what the planner does about a subscription after the merge.
type Action string

// Actions.
const (
	// ActionNone: nothing the base would not do too.
	ActionNone Action = "none"
	// ActionCommit: an Automatic plan will be committed.
	ActionCommit Action = "commit"
	// ActionPropose: a Manual plan will wait as a pull request.
	ActionPropose Action = "propose"
	// ActionApply: the head carries the plan; merging applies it.
	ActionApply Action = "apply"
	// ActionBlocked: no plan can be made, the subscription does not
	// resolve.
	ActionBlocked Action = "blocked"
)

// Impact is one subscription's outcome on both sides.
type Impact struct {
	Cluster   string `json:"cluster"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// Kind is Subscription, ClusterExtension or Dependency (an operator
	// olmops proposes because another needs it).
	Kind    string `json:"kind"`
	Package string `json:"package"`
	// Approval is Automatic or Manual.
	Approval string `json:"approval"`
	// Pos is the subscription's file at the head (at the base when the
	// head removes it); empty for a dependency.
	Pos Pos `json:"pos"`
	// Base and Head are the resolutions; nil where the subscription is
	// absent.
	Base *Resolved `json:"base,omitempty"`
	Head *Resolved `json:"head,omitempty"`
	// Action is what happens after the merge.
	Action Action `json:"action"`
	// Warnings are deprecations the head's resolution brings that the
	// base's did not.
	Warnings []string `json:"warnings,omitempty"`
}

// Resolved is where a subscription resolves on one side.
type Resolved struct {
	// Bundle and Version are the end of the upgrade path; empty on error.
	Bundle  string `json:"bundle,omitempty"`
	Version string `json:"version,omitempty"`
	// Installed is the bundle of the committed plan, "" when none.
	Installed string `json:"installed,omitempty"`
	// Error says why the subscription does not resolve; Explanation lists
	// the constraints that conflict when the resolver found a conflict.
	Error       string   `json:"error,omitempty"`
	Explanation []string `json:"explanation,omitempty"`
}

// Key names the impact's subscription: cluster/namespace/name.
func (im Impact) Key() string { return im.Cluster + "/" + im.Namespace + "/" + im.Name }

// Breaks tells whether the head stops a resolving subscription (or adds
// one that does not resolve).
func (im Impact) Breaks() bool {
	return im.Head != nil && im.Head.Error != "" && (im.Base == nil || im.Base.Error == "")
}

// StillBroken tells whether the subscription fails on both sides.
func (im Impact) StillBroken() bool {
	return im.Head != nil && im.Head.Error != "" && im.Base != nil && im.Base.Error != ""
}

// PlanScope says which clusters the plan check renders.
type PlanScope string

// Plan scopes.
const (
	// PlansChanged checks the clusters whose folder or olmops.yaml entry
	// the head changes: where plans, subscriptions, overlays or facts were
	// edited by hand. Catalog changes reach every cluster through the
	// impact, which resolves without rendering.
	PlansChanged PlanScope = "changed"
	// PlansAll checks every cluster, rendering every plan.
	PlansAll PlanScope = "all"
	// PlansNone skips the check.
	PlansNone PlanScope = "none"
)

// PlanCheck is the plan --check of the head, on some clusters.
type PlanCheck struct {
	// Clusters checked.
	Clusters []string `json:"clusters"`
	// Stale are the plans the head lacks or has out of date.
	Stale []StalePlan `json:"stale,omitempty"`
	// Errors are the clusters that could not be planned at the head.
	Errors []ClusterError `json:"errors,omitempty"`
}

// StalePlan is a committed plan that does not match its inputs, or a
// missing one.
type StalePlan struct {
	Cluster   string `json:"cluster"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	// State is Install, Upgrade, Refresh or Remove, as plan names it.
	State string `json:"state"`
	// Title is the change in one line.
	Title string `json:"title"`
	// Touched: the head edits the plan's folder, so the pull request
	// carries a plan that does not match its inputs. That is an error;
	// otherwise the planner fixes the plan after the merge (a warning).
	Touched bool `json:"touched"`
	// Status is Present when the base's plan was stale alike: the same
	// change pending before this pull request.
	Status Status `json:"status"`
	// Pos is the plan's installplan.yaml, or the subscription's file.
	Pos Pos `json:"pos"`
	// Escalations are what the change grants that the committed plan did
	// not (see render.Escalations).
	Escalations []string `json:"escalations,omitempty"`
	// RiskApproval: the subscription is Automatic, but olmops.yaml's
	// escalation policy has the change proposed for approval.
	RiskApproval bool `json:"riskApproval,omitempty"`
}

// ClusterError is a cluster the planner could not plan at the head.
type ClusterError struct {
	Cluster string `json:"cluster"`
	Status  Status `json:"status"`
	Message string `json:"message"`
}
