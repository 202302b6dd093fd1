package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Repository points an in-cluster olmops controller at a desired-state Git
// repository and one of its clusters: the controller fetches the branch on
// an interval, applies the merged plans of that cluster and reports what
// happened in status and, through the forge, as commit statuses.
//
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:path=repositories,singular=repository,scope=Namespaced,categories=olmops
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Status",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].message`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
// +kubebuilder:printcolumn:name="Last Applied",type=string,JSONPath=`.status.lastAppliedCommit`
// +kubebuilder:printcolumn:name="Suspended",type=boolean,JSONPath=`.spec.suspend`
// +kubebuilder:printcolumn:name="Cluster",type=string,JSONPath=`.spec.cluster`,priority=1
// +kubebuilder:printcolumn:name="URL",type=string,JSONPath=`.spec.url`,priority=1
type Repository struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// spec says which repository and cluster to reconcile, and how.
	Spec RepositorySpec `json:"spec"`
	// status is what the controller last observed and did.
	// +optional
	Status RepositoryStatus `json:"status,omitzero"`
}

// RepositoryList is a list of Repository objects.
//
// +kubebuilder:object:root=true
type RepositoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// items are the Repository objects.
	Items []Repository `json:"items"`
}

// RepositorySpec is which Git repository and which of its clusters a
// controller reconciles, and how.
//
// Durations are strings like 30s, 5m or 1h30m; omitted, the API server fills
// the documented default, so a controller reads them without checking.
//
// +kubebuilder:object:generate=true
type RepositorySpec struct {
	// url of the Git repository: http(s)://, ssh:// or scp-like
	// user@host:path.
	// +required
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^((https?|ssh)://\S+|[A-Za-z0-9._~-]+@[A-Za-z0-9.-]+:\S+)$`
	URL string `json:"url"`
	// branch whose merged plans are applied.
	// +optional
	// +kubebuilder:default=main
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=255
	// +kubebuilder:validation:Pattern=`^[^\s~^:?*\[\\]+$`
	Branch string `json:"branch,omitempty"`
	// cluster is the name of the cluster, as the repository's olmops.yaml
	// (or clusters/ folder) names it, whose plans this controller applies.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`
	Cluster string `json:"cluster"`
	// interval between two fetches of the branch; each also re-applies
	// objects that drifted. A push webhook triggers a fetch sooner.
	// At least 1s.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="must be at least 1s"
	Interval metav1.Duration `json:"interval,omitzero"`
	// timeout of one fetch of the repository. At least 1s.
	// +optional
	// +kubebuilder:default="60s"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="must be at least 1s"
	Timeout metav1.Duration `json:"timeout,omitzero"`
	// healthTimeout is how long one hop of a plan may take to become
	// healthy (Deployments available, CRDs established) before it fails
	// with HealthCheckFailed. At least 1s.
	// +optional
	// +kubebuilder:default="5m"
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:MaxLength=32
	// +kubebuilder:validation:Pattern=`^([0-9]+(\.[0-9]+)?(ms|s|m|h))+$`
	// +kubebuilder:validation:XValidation:rule="duration(self) >= duration('1s')",message="must be at least 1s"
	HealthTimeout metav1.Duration `json:"healthTimeout,omitzero"`
	// secretRef names a Secret, in the Repository's namespace, holding the
	// Git credentials: token (HTTPS), username and password (HTTPS basic),
	// or identity (an SSH private key) with known_hosts. Omitted, the
	// repository is read anonymously.
	// +optional
	SecretRef *LocalObjectReference `json:"secretRef,omitempty"`
	// verify, when set, applies only a head commit whose signature
	// verifies against the keys of a Secret, as Flux's
	// GitRepository.spec.verify does; any other head is refused with
	// Ready=False, Stalled=True and reason VerificationFailed, and nothing
	// is applied.
	// +optional
	Verify *VerifySpec `json:"verify,omitempty"`
	// forge says where commit statuses are posted. Omitted, the forge
	// section of the repository's olmops.yaml applies.
	// +optional
	Forge *ForgeSpec `json:"forge,omitempty"`
	// suspend stops reconciliation (fetch, apply, prune, statuses) until
	// cleared; what is applied stays.
	// +optional
	Suspend bool `json:"suspend,omitempty"`
	// prune deletes objects that left the plans. CustomResourceDefinitions
	// and Namespaces are never deleted: deleting a CRD deletes every
	// custom resource of its kind.
	// +optional
	// +kubebuilder:default=true
	Prune *bool `json:"prune,omitempty"`
}

// PruneEnabled says whether objects that left the plans are deleted: prune,
// true when unset. Prune is a pointer because with a plain bool and
// omitempty a client could never send false past the default of true.
func (s *RepositorySpec) PruneEnabled() bool { return s.Prune == nil || *s.Prune }

// VerifyMode says which commit's signature is verified.
// +kubebuilder:validation:Enum=HEAD
type VerifyMode string

// VerifyModeHead verifies the head commit of spec.branch, the one applied.
const VerifyModeHead VerifyMode = "HEAD"

// VerifySpec says which keys a commit must be signed with to be applied.
//
// +kubebuilder:object:generate=true
type VerifySpec struct {
	// mode is what is verified: HEAD, the branch's head commit.
	// +optional
	// +kubebuilder:default=HEAD
	Mode VerifyMode `json:"mode,omitempty"`
	// secretRef names a Secret, in the Repository's namespace, whose keys
	// ending in .asc hold armored OpenPGP public keys and whose keys ending
	// in .sshpub hold SSH public keys (authorized_keys lines); a commit
	// signed by any of them verifies.
	// +required
	SecretRef LocalObjectReference `json:"secretRef"`
}

// LocalObjectReference names an object in the referrer's namespace.
//
// +kubebuilder:object:generate=true
type LocalObjectReference struct {
	// name of the object.
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Name string `json:"name"`
}

// ForgeSpec says which forge commit statuses go to and with which token.
//
// +kubebuilder:object:generate=true
// +kubebuilder:validation:XValidation:rule="self.type != 'github' || (has(self.owner) && has(self.repo))",message="owner and repo are required for a github forge"
type ForgeSpec struct {
	// type is github (statuses and pull requests through the GitHub API)
	// or git (branches and commits only: no statuses).
	// +required
	// +kubebuilder:validation:Enum=github;git
	Type ForgeType `json:"type"`
	// owner is the GitHub organisation or user owning the repository.
	// Required for github.
	// +optional
	// +kubebuilder:validation:MaxLength=39
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?$`
	Owner string `json:"owner,omitempty"`
	// repo is the GitHub repository name. Required for github.
	// +optional
	// +kubebuilder:validation:MaxLength=100
	// +kubebuilder:validation:Pattern=`^[A-Za-z0-9._-]+$`
	Repo string `json:"repo,omitempty"`
	// baseURL is the API URL of a GitHub Enterprise server
	// (https://github.example.com/api/v3/). Omitted, GitHub.com.
	// +optional
	// +kubebuilder:validation:MaxLength=2048
	// +kubebuilder:validation:Pattern=`^https?://\S+$`
	BaseURL string `json:"baseURL,omitempty"`
	// tokenSecretRef names a Secret, in the Repository's namespace, whose
	// token key holds the forge API token.
	// +optional
	TokenSecretRef *LocalObjectReference `json:"tokenSecretRef,omitempty"`
}
