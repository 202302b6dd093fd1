// Package reconciler makes clusters match the merged plans of a
// desired-state repository and tells Git what happened.
//
// A Syncer does one pass for one cluster at one commit, the same for the
// in-cluster controller (olmops serve) and the one-shot command (olmops
// apply), in named steps:
//
//   - load: read olmops.yaml, the cluster's entry and every plan folder
//     under clusters/<cluster>/plans/ at the commit; a plan that does not
//     load (or whose manifests were edited by hand) fails alone, and nothing
//     of it is applied;
//   - apply: each plan through reconciler/apply, the providers of its
//     required packages and APIs first (order.go); a plan that needs what
//     neither the cluster nor a healthy provider offers is held, unapplied;
//     a few at a time, resuming from what the previous pass installed;
//   - remove: subscriptions whose plan left the branch have their objects
//     pruned when pruning is on;
//   - report: a commit status per subscription on the commit that carried
//     its plan (docs/statuses.md), and the cluster-wide olmops/<cluster>
//     status on the commit for olm.maxOpenShiftVersion, each posted only
//     when it changed; on OpenShift, the Upgradeable condition of the
//     ClusterOperator olmops (Syncer.ClusterOperator), which holds a
//     minor cluster upgrade an installed bundle does not allow.
//
// What a pass leaves (installed bundle, inventory) is returned as
// api/v1alpha1.SubscriptionStatus values, which the caller persists in the
// Repository's status and passes back. A failure the API server will not
// change its mind about (an invalid object, a denial, a missing kind, a
// health timeout) is that subscription's Failed phase; one that may pass
// on its own (the API server unreachable, a timeout, a conflict) fails the
// pass with an error to retry with backoff, and posts nothing, so commit
// statuses do not flap with the network.
//
// RepositoryReconciler is the controller-runtime reconciler of Repository
// objects around a Syncer: fetch on spec.interval or on a push webhook
// (package pushhook), sync, and record conditions, events and metrics.
package reconciler
