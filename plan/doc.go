// Package plan turns a cluster's desired state into InstallPlans: for every
// namespace it resolves all subscriptions together, renders each hop of
// each upgrade path to manifests (bundle, Subscription config, the
// cluster's kustomize overlay), and compares the result with the plans
// committed on the target branch.
//
// It is the pure core of `olmops plan`: values in, values out. The only
// I/O it may cause is through the BundleSource the caller passes, which can
// pull bundle images. Committing, pushing and proposing belong to package
// planner.
package plan
