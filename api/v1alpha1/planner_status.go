package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PlannerStatus is what the planning controller last observed and did.
//
// +kubebuilder:object:generate=true
type PlannerStatus struct {
	// observedGeneration is the metadata.generation of the spec the
	// conditions describe.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// conditions are Ready, Reconciling and Stalled, with the reasons
	// documented in this package (Succeeded, FetchFailed, InvalidInput,
	// ProposeFailed...).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// lastFetchedCommit is the commit of spec.branch last fetched.
	// +optional
	LastFetchedCommit string `json:"lastFetchedCommit,omitempty"`
	// lastPlannedCommit is the head of spec.branch after the last pass
	// that planned every selected cluster and proposed every change:
	// what the branch holds at that commit is planned.
	// +optional
	LastPlannedCommit string `json:"lastPlannedCommit,omitempty"`
	// lastHandledReconcileAt is the value of the
	// reconcile.fluxcd.io/requestedAt annotation the controller last acted
	// on.
	// +optional
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`
	// lastPlannedTime is when that pass ended.
	// +optional
	LastPlannedTime *metav1.Time `json:"lastPlannedTime,omitempty"`
	// proposals are the proposals the last pass that reached the forge
	// opened, updated or found unchanged, by branch. A cluster whose
	// inputs broke keeps the entries of its last good pass.
	// +optional
	// +listType=map
	// +listMapKey=branch
	// +kubebuilder:validation:MaxItems=10000
	Proposals []ProposalStatus `json:"proposals,omitempty"`
	// catalogs are the last polls of the catalog sources olmops.yaml
	// names, by catalog.
	// +optional
	// +listType=map
	// +listMapKey=name
	// +kubebuilder:validation:MaxItems=1000
	Catalogs []CatalogPoll `json:"catalogs,omitempty"`
	// nextPromotionTime is when the first soak that holds a following
	// cluster's change ends (PromotionHeld): a pass plans then, without
	// waiting for the interval. Absent when no hold ends by itself.
	// +optional
	NextPromotionTime *metav1.Time `json:"nextPromotionTime,omitempty"`
	// followedClusters are the clusters the selected clusters follow
	// (olmops.yaml's promotion.after), as the last pass that read
	// olmops.yaml found them: a new report of one of them (its Repository's
	// status in this controller's cluster, or a commit status the forge's
	// webhook announces) wakes the Planner while promotion holds a change.
	// +optional
	// +listType=set
	// +kubebuilder:validation:MaxItems=1000
	// +kubebuilder:validation:items:MaxLength=253
	FollowedClusters []string `json:"followedClusters,omitempty"`
	// consecutiveFailures counts the passes in a row that failed with an
	// error expected to pass (fetch, push, the forge) since the last pass
	// that succeeded or stalled: the retries back off from it, and a
	// controller that takes over (a restart, a new leader) continues the
	// backoff rather than starting it again.
	// +optional
	// +kubebuilder:validation:Minimum=0
	ConsecutiveFailures int32 `json:"consecutiveFailures,omitempty"`
	// nextAttemptTime is when the failing Planner is retried; absent
	// when the last pass did not fail.
	// +optional
	NextAttemptTime *metav1.Time `json:"nextAttemptTime,omitempty"`
}

// ProposalStatus is one proposal a Planner keeps: a pull request, or a
// plan branch on a git-only forge.
//
// +kubebuilder:object:generate=true
type ProposalStatus struct {
	// branch proposed, olmops/<cluster>/<namespace>/<name>.
	// +required
	// +kubebuilder:validation:MinLength=1
	Branch string `json:"branch"`
	// cluster the proposal plans.
	// +required
	Cluster string `json:"cluster"`
	// namespace and name of the subscription whose plan leads the
	// proposal.
	// +optional
	Namespace string `json:"namespace,omitempty"`
	// name: see namespace.
	// +optional
	Name string `json:"name,omitempty"`
	// targetBundle is the bundle the proposal installs.
	// +optional
	TargetBundle string `json:"targetBundle,omitempty"`
	// number of the pull request; 0 on a git-only forge.
	// +optional
	Number int `json:"number,omitempty"`
	// url where a person reviews the proposal; may be empty.
	// +optional
	URL string `json:"url,omitempty"`
	// state is open, merged or closed, as the forge last said.
	// +optional
	// +kubebuilder:validation:Enum=open;merged;closed
	State string `json:"state,omitempty"`
	// commit is the proposal branch's head as last proposed.
	// +optional
	Commit string `json:"commit,omitempty"`
}
