package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// RepositoryStatus is what the controller last observed and did.
//
// +kubebuilder:object:generate=true
type RepositoryStatus struct {
	// observedGeneration is the metadata.generation of the spec the
	// conditions describe.
	// +optional
	ObservedGeneration int64 `json:"observedGeneration,omitempty"`
	// conditions are Ready, Reconciling and Stalled, with the reasons
	// documented in this package (Succeeded, FetchFailed, ApplyFailed...).
	// +optional
	// +listType=map
	// +listMapKey=type
	// +patchStrategy=merge
	// +patchMergeKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty" patchStrategy:"merge" patchMergeKey:"type"`
	// lastHandledReconcileAt is the value of the
	// reconcile.fluxcd.io/requestedAt annotation the controller last acted
	// on.
	// +optional
	LastHandledReconcileAt string `json:"lastHandledReconcileAt,omitempty"`
	// lastFetchedCommit is the commit of spec.branch last fetched.
	// +optional
	LastFetchedCommit string `json:"lastFetchedCommit,omitempty"`
	// lastAppliedCommit is the last commit whose plans were all applied
	// as far as allowed: every subscription Installed or Held.
	// +optional
	LastAppliedCommit string `json:"lastAppliedCommit,omitempty"`
	// subscriptions is the state of each subscription of the cluster that
	// has a plan, by namespace and name.
	// +optional
	// +listType=map
	// +listMapKey=namespace
	// +listMapKey=name
	Subscriptions []SubscriptionStatus `json:"subscriptions,omitempty"`
}

// SubscriptionPhase is where a subscription's plan stands.
//
// +kubebuilder:validation:Enum=Installed;Applying;Held;Failed
type SubscriptionPhase string

// Subscription phases.
const (
	// SubscriptionInstalled: the plan's target is applied and healthy.
	SubscriptionInstalled SubscriptionPhase = "Installed"
	// SubscriptionApplying: a hop is being applied or awaited healthy.
	SubscriptionApplying SubscriptionPhase = "Applying"
	// SubscriptionHeld: the upgrade waits, for the installed operator's
	// Upgradeable=False; it resumes by itself when that clears.
	SubscriptionHeld SubscriptionPhase = "Held"
	// SubscriptionFailed: a hop failed to apply or to become healthy;
	// message says why, and earlier hops stay as they are.
	SubscriptionFailed SubscriptionPhase = "Failed"
)

// SubscriptionStatus is the state of one subscription's plan in the
// cluster.
//
// +kubebuilder:object:generate=true
type SubscriptionStatus struct {
	// namespace the operator is installed in.
	// +required
	// +kubebuilder:validation:MinLength=1
	Namespace string `json:"namespace"`
	// name of the subscription.
	// +required
	// +kubebuilder:validation:MinLength=1
	Name string `json:"name"`
	// phase is Installed, Applying, Held or Failed.
	// +required
	Phase SubscriptionPhase `json:"phase"`
	// message says why the phase is Held or Failed, in words a person can
	// act on.
	// +optional
	Message string `json:"message,omitempty"`
	// installedBundle is the bundle last applied and found healthy.
	// +optional
	InstalledBundle string `json:"installedBundle,omitempty"`
	// targetBundle is the bundle the merged plan installs.
	// +optional
	TargetBundle string `json:"targetBundle,omitempty"`
	// hop is the 1-based index, in the plan's path, of the hop being
	// applied, or of the last one applied.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Hop int32 `json:"hop,omitempty"`
	// hops is the number of hops in the plan's path.
	// +optional
	// +kubebuilder:validation:Minimum=0
	Hops int32 `json:"hops,omitempty"`
	// healthy says whether the installed objects passed the health
	// checks (Deployments available, CRDs established).
	// +optional
	Healthy bool `json:"healthy,omitempty"`
	// upgradeable is the status of the installed operator's
	// OperatorCondition Upgradeable: True, False or Unknown (no
	// OperatorCondition, or no such condition).
	// +optional
	// +kubebuilder:validation:Enum=True;False;Unknown
	Upgradeable metav1.ConditionStatus `json:"upgradeable,omitempty"`
	// upgradeableMessage is the message of that condition.
	// +optional
	UpgradeableMessage string `json:"upgradeableMessage,omitempty"`
	// inventory is every object applied for the subscription, each as
	// ObjectRef.String formats it ("apps/v1/Deployment/ns/name"); objects
	// that leave the plan are pruned from it.
	// +optional
	// +listType=set
	Inventory []string `json:"inventory,omitempty"`
	// lastAppliedCommit is the commit of the plan last applied for the
	// subscription.
	// +optional
	LastAppliedCommit string `json:"lastAppliedCommit,omitempty"`
}
