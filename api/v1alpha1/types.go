package v1alpha1

// GroupVersion is the apiVersion of the plan files and of the Repository
// CRD.
const GroupVersion = "olmops.io/v1alpha1"

// RepositoryKind is the kind of the Repository CRD.
const RepositoryKind = "Repository"

// ConfigGroupVersion and ConfigKind name olmops.yaml. They differ from
// every kind the API server serves, so a Flux or Argo CD sync of the
// repository root (or kubectl apply -f olmops.yaml) cannot mistake the
// file for a Repository object with another schema.
const (
	ConfigGroupVersion = "config.olmops.io/v1alpha1"
	ConfigKind         = "RepositoryConfig"
)

// olmops.yaml files written before it had a kind of its own say
// apiVersion olmops.io/v1alpha1, kind Repository: Validate still accepts
// that pair so that existing repositories keep working.

// File names and folders of the desired-state repository.
const (
	// RepositoryFile is the optional configuration file at the repo root.
	RepositoryFile = "olmops.yaml"
	// ClusterFile holds a cluster's facts, in the cluster's folder.
	ClusterFile = "cluster.yaml"
	// CatalogsDir holds one folder per catalog when olmops.yaml is absent.
	CatalogsDir = "catalogs"
	// ClustersDir holds one folder per cluster when olmops.yaml is absent.
	ClustersDir = "clusters"
)

// Approval says whether a resolved upgrade is committed straight to the
// target branch or waits as a pull request.
type Approval string

// Approvals.
const (
	// ApprovalAutomatic commits the plan (or auto-merges its pull request).
	ApprovalAutomatic Approval = "Automatic"
	// ApprovalManual opens a pull request; merging it is the approval.
	ApprovalManual Approval = "Manual"
)

// SuccessorPolicy selects how the successor of an installed bundle is chosen.
type SuccessorPolicy string

// Successor policies.
const (
	// SuccessorPolicySemver is the OLM v1 rule: the highest version whose
	// replaces, skips or skipRange covers the installed bundle.
	SuccessorPolicySemver SuccessorPolicy = "Semver"
	// SuccessorPolicyClassic is the OLM classic rule: follow the replaces
	// chain one step at a time.
	SuccessorPolicyClassic SuccessorPolicy = "Classic"
)

// ForgeType is the kind of forge plans are proposed through.
type ForgeType string

// Forge types.
const (
	// ForgeGitHub opens pull requests and sets commit statuses on GitHub
	// (or GitHub Enterprise at BaseURL).
	ForgeGitHub ForgeType = "github"
	// ForgeGit only pushes branches and commits: no pull requests.
	ForgeGit ForgeType = "git"
)

// TypeMeta is the apiVersion and kind of an object.
type TypeMeta struct {
	// apiVersion is config.olmops.io/v1alpha1 (olmops.io/v1alpha1 with
	// kind Repository is still read).
	APIVersion string `json:"apiVersion"`
	// kind is RepositoryConfig.
	Kind string `json:"kind"`
}

// ObjectMeta is the part of Kubernetes object metadata olmops.yaml may
// carry.
type ObjectMeta struct {
	// name of the repository, for people.
	// +optional
	Name string `json:"name,omitempty"`
	// labels are free-form key/value pairs.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// annotations are free-form key/value pairs.
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
}

// RepositoryConfig is olmops.yaml (kind Repository): the catalogs and
// clusters of a desired-state repository and how plans reach them. It is a
// file in that repository, never an object in a cluster; the in-cluster
// object pointing a controller at the repository is Repository.
type RepositoryConfig struct {
	TypeMeta `json:",inline"`
	// metadata of the repository.
	// +optional
	Metadata ObjectMeta `json:"metadata,omitempty"`
	// spec is the configuration.
	Spec RepositoryConfigSpec `json:"spec"`
}

// RepositoryConfigSpec is the configuration of a desired-state repository.
type RepositoryConfigSpec struct {
	// catalogs are the file-based catalogs bundles are resolved from.
	// +optional
	Catalogs []Catalog `json:"catalogs,omitempty"`
	// clusters are the clusters olmops plans for.
	// +optional
	Clusters []Cluster `json:"clusters,omitempty"`
	// forge says how plans are proposed and statuses reported.
	// +optional
	Forge *Forge `json:"forge,omitempty"`
	// policy gates changes that need more trust than their
	// subscription's approval gives.
	// +optional
	Policy Policy `json:"policy,omitzero"`
}

// Policy gates risky changes, whatever the approval of the subscription
// they belong to.
type Policy struct {
	// escalations says what happens to a change whose manifests grant
	// what the committed ones did not: wildcard or bind/escalate/
	// impersonate rules, bindings to powerful built-in roles, privileged
	// or host-namespace pods, hostPath volumes, admission webhooks and
	// APIServices.
	// +optional
	Escalations EscalationPolicy `json:"escalations,omitzero"`
}

// EscalationPolicy says what happens to an escalating change.
type EscalationPolicy struct {
	// onAutomatic applies to the changes of Automatic subscriptions:
	// Allow commits them like any other, Manual proposes them for
	// approval instead ("risk-based approval"), Deny refuses to plan the
	// cluster (and fails review). Defaults to Allow. Manual subscriptions
	// always wait for approval, escalations listed in their proposal.
	// +optional
	OnAutomatic EscalationAction `json:"onAutomatic,omitempty"`
}

// EscalationAction is what the policy does with an escalating change.
type EscalationAction string

// Escalation actions.
const (
	// EscalationAllow lets the change through with its approval.
	EscalationAllow EscalationAction = "Allow"
	// EscalationManual proposes the change for approval.
	EscalationManual EscalationAction = "Manual"
	// EscalationDeny refuses the change: the cluster is not planned.
	EscalationDeny EscalationAction = "Deny"
)

// Catalog is one file-based catalog in the repository.
type Catalog struct {
	// name of the catalog; a Subscription's spec.source refers to it.
	// A DNS-1123 subdomain, unique in the repository.
	Name string `json:"name"`
	// path of the catalog's folder, relative to the repository root.
	// Defaults to catalogs/<name>.
	// +optional
	Path string `json:"path,omitempty"`
	// priority orders catalogs when several provide a package or GVK:
	// higher wins. Defaults to 0.
	// +optional
	Priority int32 `json:"priority,omitempty"`
	// bundlesPath is an optional folder, relative to the repository root,
	// holding one directory per bundle (manifests/ and metadata/) for
	// bundles whose manifests are not in the catalog.
	// +optional
	BundlesPath string `json:"bundlesPath,omitempty"`
	// source is the catalog image the folder is imported from; a Planner
	// polls it and proposes (or commits) each new content it finds.
	// +optional
	Source *CatalogSource `json:"source,omitempty"`
	// labels are the catalog's labels, which a ClusterExtension's
	// spec.source.catalog.selector matches, as OLM v1 matches a
	// ClusterCatalog's. Every catalog also carries
	// olm.operatorframework.io/metadata.name: <name>, which may not be
	// set to anything else.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// namespaces restricts the catalog to these namespaces, as a
	// CatalogSource in each of them would be: subscriptions (and the
	// dependencies resolved for them) in other namespaces do not see it,
	// and a Subscription's spec.sourceNamespace must name its own
	// namespace. Left out, the catalog is global: every namespace sees it
	// and spec.sourceNamespace names a global catalog namespace (olm or
	// openshift-marketplace).
	// +optional
	Namespaces []string `json:"namespaces,omitempty"`
}

// ClusterFacts are the facts about a cluster that resolution depends on, as
// written in clusters/<cluster>/cluster.yaml or on the cluster's entry.
type ClusterFacts struct {
	// kubernetesVersion is the cluster's Kubernetes version (e.g. 1.33.2),
	// checked against bundles' olm.kubeversion.
	// +optional
	KubernetesVersion string `json:"kubernetesVersion,omitempty"`
	// openshiftVersion is the cluster's OpenShift version (e.g. 4.20.3),
	// checked against bundles' olm.maxOpenShiftVersion.
	// +optional
	OpenShiftVersion string `json:"openshiftVersion,omitempty"`
}

// Cluster is one cluster olmops plans for.
type Cluster struct {
	// name of the cluster. A DNS-1123 subdomain, unique in the repository.
	Name string `json:"name"`
	// path of the cluster's folder, relative to the repository root.
	// Defaults to clusters/<name>.
	// +optional
	Path string `json:"path,omitempty"`
	// targetBranch is the branch plans for this cluster are committed to
	// (Automatic) or proposed against (Manual). Defaults to the branch
	// olmops runs on.
	// +optional
	TargetBranch string `json:"targetBranch,omitempty"`
	// approval is the default approval of the cluster's Subscriptions and
	// ClusterExtensions: Automatic or Manual. Defaults to Automatic.
	// +optional
	Approval Approval `json:"approval,omitempty"`
	// successorPolicy is the default successor policy of the cluster:
	// Semver or Classic. Unset, each object keeps its own OLM's policy:
	// Classic for a Subscription, Semver for a ClusterExtension.
	// +optional
	SuccessorPolicy SuccessorPolicy `json:"successorPolicy,omitempty"`
	// promotion makes the cluster follow others: a bundle reaches it only
	// after it ran healthy on each of them for the soak time.
	// +optional
	Promotion *Promotion `json:"promotion,omitempty"`
	// ClusterFacts may also be written here instead of in cluster.yaml.
	ClusterFacts `json:",inline"`
}

// Forge says how plans are proposed and statuses reported.
type Forge struct {
	// type is github or git.
	Type ForgeType `json:"type"`
	// owner is the GitHub organisation or user owning the repository.
	// Required for github.
	// +optional
	Owner string `json:"owner,omitempty"`
	// repo is the GitHub repository name. Required for github.
	// +optional
	Repo string `json:"repo,omitempty"`
	// baseURL is the API URL of a GitHub Enterprise server
	// (https://github.example.com/api/v3/). Defaults to GitHub.com.
	// +optional
	BaseURL string `json:"baseURL,omitempty"`
	// tokenSecret names the Secret holding the forge token, for the
	// in-cluster controller.
	// +optional
	TokenSecret *SecretKeyRef `json:"tokenSecret,omitempty"`
	// tokenEnv names the environment variable holding the forge token, for
	// the command line.
	// +optional
	TokenEnv string `json:"tokenEnv,omitempty"`
}

// SecretKeyRef selects a key of a Secret in olmops' namespace.
type SecretKeyRef struct {
	// name of the Secret.
	Name string `json:"name"`
	// key in the Secret's data. Defaults to token.
	// +optional
	Key string `json:"key,omitempty"`
}
