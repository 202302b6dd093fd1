// Package v1alpha1 is the schema of the olmops desired-state repository:
// olmops.yaml (kind Repository, apiVersion olmops.io/v1alpha1) and the
// per-cluster clusters/<cluster>/cluster.yaml facts.
//
// The types follow Kubernetes API conventions (camelCase JSON, +optional
// markers) because they will also be the in-cluster Repository CRD; the
// object metadata, deepcopy and CRD manifests come with the reconciler.
//
// Load and LoadCluster are strict: an unknown field, a value of the wrong
// type or an invalid value is an *Error naming the file and line, and every
// problem of a file is reported at once. Defaults builds the Repository a
// repo without olmops.yaml implies.
package v1alpha1
