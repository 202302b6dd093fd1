package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Planner points an in-cluster olmops controller at a desired-state Git
// repository to plan: on an interval, or when the push webhook says the
// branch moved, the controller fetches it and runs what `olmops plan
// --push` runs for the selected clusters, committing Automatic plans and
// opening or updating proposals for Manual ones. One object per
// repository; the Repository kind applies what was merged.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=planners,singular=planner,scope=Namespaced,categories=olmops
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Last Planned",type=string,JSONPath=`.status.lastPlannedCommit`
// +kubebuilder:printcolumn:name="Suspended",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.url`,priority=1
type Planner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which repository to plan, and how.
	Spec PlannerSpec `json:"spec"`
	// status is what the controller last observed and did.
	// +optional
	Status PlannerStatus `json:"status,omitzero"`
}

// PlannerList is a list of Planner objects.
//
// +kubebuilder:object:root=true
type PlannerList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Planner objects.
	Items []Planner `json:"items"`
}

// PlannerSpec is which Git repository a planning controller plans, which
// of its clusters, and how often.
//
// +kubebuilder:object:generate=true
type PlannerSpec struct {
	// url of the Git repository: http(s)://, ssh:// or scp-like
	// user@host:path. The credentials must allow pushing: plans are
	// committed and proposal branches pushed.
	// +required
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^((https?|ssh)://\S+|[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:\S+)$`
	URL string `json:"url"`
	// branch whose olmops.yaml is read; each cluster's plans go to the
	// target branch olmops.yaml gives it.
	// +optional
	// +kubebuilder:default=main
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	Branch string `json:"branch,omitempty"`
	// clusters limits planning to these clusters, as olmops.yaml (or
	// the clusters/ folder) names them. Empty plans every cluster.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=253
	// +kubebuilder:validation:items:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Clusters []string `json:"clusters,omitempty"`
	// interval between two passes. A pass on a commit already planned
	// plans again only once this long after the last plan (proposals
	// may have been merged or closed since); a push webhook on a new
	// commit triggers a pass sooner. At least 10s.
	// +optional
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('10s')",message="must be at least 10s"
	Interval metav1.Duration `json:"interval,omitzero"`
	// timeout of one pass: fetch, plan, push and propose. At least 1s.
	// +optional
	// +kubebuilder:default="10m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="must be at least 1s"
	Timeout metav1.Duration `json:"timeout,omitzero"`
	// secretRef names a Secret, in the Planner's namespace, holding the
	// Git credentials, in the same keys as a Repository's: token,
	// username and password, or identity with known_hosts.
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
	// forge says where proposals are opened. Omitted, the forge section
	// of the repository's olmops.yaml applies, its tokenSecret read from
	// the Planner's namespace.
	// +optional
	Forge *ForgeSpec `json:"forge,omitempty"`
	// registry says how the catalog images olmops.yaml names as sources
	// are reached: credentials and mirrors.
	// +optional
	Registry *RegistrySpec `json:"registry,omitempty"`
	// suspend stops planning until cleared; proposals stay as they are.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
}

// Condition reasons of a Planner, besides Succeeded, Progressing,
// ProgressingWithRetry and FetchFailed, which mean for a Planner what
// they mean for a Repository.
const (
	// InvalidInputReason: olmops.yaml, or a cluster's catalogs or
	// subscriptions, do not load or resolve; the message names the file
	// and line. Nothing is proposed for that cluster and its proposals
	// stay as they are; a new commit or the next interval tries again
	// (Ready=False, Stalled=True).
	InvalidInputReason = "InvalidInput"
	// ProposeFailedReason: a plan could not be pushed or proposed (the
	// forge is down or rate limited, the push was refused); the
	// controller retries with backoff, at the time the message gives
	// (Ready=False, Reconciling=True).
	ProposeFailedReason = "ProposeFailed"
	// PushRefusedReason: the Git server or the forge refused a push or a
	// proposal for a reason retrying does not fix (branch protection, a
	// token without write access), several attempts in a row; the
	// controller tries again only at the interval, on a push or a spec
	// change (Ready=False, Stalled=True).
	PushRefusedReason = "PushRefused"
	// PollFailedReason: a catalog image could not be polled or imported
	// (the registry down, credentials refused, an invalid catalog); the
	// catalog last imported stays, and the poll is retried with backoff.
	// It is the reason of the CatalogsPolled condition.
	PollFailedReason = "PollFailed"
	// CatalogsPolledCondition says whether the last poll of every catalog
	// source olmops.yaml names succeeded.
	CatalogsPolledCondition = "CatalogsPolled"
)
