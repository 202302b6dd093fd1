// Package v1alpha1 is the olmops.io/v1alpha1 API: the schema of the
// desired-state repository and the in-cluster Repository and Planner CRDs.
//
// The desired-state repository holds olmops.yaml (RepositoryConfig, kind
// Repository), the per-cluster clusters/<cluster>/cluster.yaml facts
// (ClusterFacts) and the plan files olmops writes (InstallPlan). Load,
// LoadCluster and LoadInstallPlan are strict: an unknown field, a value of
// the wrong type or an invalid value is an *Error naming the file and line,
// and every problem of a file is reported at once. Defaults builds the
// RepositoryConfig a repo without olmops.yaml implies. These types are files,
// not API objects: they are never registered in a runtime.Scheme.
//
// Repository (with RepositoryList) is the CRD an in-cluster controller
// reconciles: which repository and cluster to apply, how often, with which
// credentials, and what happened (conditions, commits, per subscription the
// installed bundle, hop, health, Upgradeable and inventory). Planner (with
// PlannerList) is the CRD the planning controller reconciles: which
// repository and clusters to plan, how often, with which credentials, and
// what happened (conditions, the last planned commit, the proposals).
// AddToScheme registers both. Their deepcopy functions
// (zz_generated.deepcopy.go) and CRD manifests (config/crd/bases) are
// generated from the markers on their types by `make generate`; edit the
// types, never the generated files.
//
// olmops.yaml and the CRD share apiVersion and kind but never meet: the
// file is decoded only by Load, from a Git tree; the object only through a
// Scheme, from the API server. Hence the two Go names for one kind.
//
// +groupName=olmops.io
package v1alpha1
