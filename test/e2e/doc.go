// Package e2e holds the end-to-end tests of the whole loop: the olmops
// binary, built once, run as a user runs it against real parts only: git's
// own HTTP server on 127.0.0.1, envtest's kube-apiserver and etcd, the
// GitHub fake (gitsource/github/githubtest, backed by the git server's
// repository, so that its merge button moves main) and an in-process OCI
// registry (catalog/oci/ocitest), set up by test/harness, which make demo
// shares.
//
// The scenarios: the user's whole walk (a catalog image imported and
// merged, a Manual proposal approved by its merge and applied hop by hop,
// statuses on the commit, Upgradeable=False failing the next proposal and
// holding its merge until it clears, a subscription removed and pruned); a
// pull request closed without merging; a hop the API server refuses; drift
// put back; a deleted proposal branch.
//
// They drive olmops only from outside (its command line, git, the API
// server, the forge's HTTP API); of its packages they use the fakes at the
// edges and the documented contracts (api/v1alpha1, the status names of
// commitstatus), so they keep proving what users get while the rest
// changes. The scenarios share one control plane, one after the other:
// each has its own cluster name, namespaces and Repository.
package e2e
