// Package resolver decides what to install or upgrade to, the way OLM does.
//
// Its upgrade half (upgrade*.go) is pure functions over the catalog model:
// Successors lists, best first, the bundles one request may move to under a
// successor Policy, with the catalog, channel and edge (replaces, skips,
// skipRange, ...) that justify each one, plus the deprecation warnings that
// apply. UpgradePath repeats that until nothing newer is reachable, the
// steps OLM takes over successive resolutions.
//
//   - Semver is OLM v1 (ClusterExtension): candidates are the bundles of
//     the selected channels (every bundle of the package when none is
//     selected) inside the version range with a direct edge from the
//     installed bundle, plus the installed bundle itself; non-deprecated
//     first, then highest version and release.
//   - Classic is OLM classic (Subscription): entries in channel order
//     (default channel first, then by name, each from its head down the
//     replaces chain); the successor is the one closest to the head whose
//     edge covers the installed bundle, one hop per resolution.
//
// Version ranges live in catalog/semver. Dependency resolution (SAT) is
// resolver/sat; Resolve joins the two.
package resolver
