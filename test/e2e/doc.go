// Package e2e holds the end-to-end tests of the whole loop: the olmops
// binary, built once, run as a user runs it against real parts only (git's
// own HTTP server on 127.0.0.1, envtest's kube-apiserver and etcd), set
// up by test/harness, which make demo shares. They use no internal API of
// olmops, so they keep proving what users get while its packages change.
package e2e
