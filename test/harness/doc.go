// Package harness starts the real parts of the whole olmops loop on one
// machine, for the end-to-end tests in test/ and for make demo alike: a
// control plane per cluster (envtest's kube-apiserver and etcd), git's own
// HTTP server on 127.0.0.1 holding the desired-state repository, and the
// olmops binary run as a user runs it (plan, apply, serve).
//
// It drives olmops from outside, through its command line, the API server
// and git, so that what it proves holds for the binary users get. Nothing
// here prints: the demo narrates, the tests assert.
package harness
