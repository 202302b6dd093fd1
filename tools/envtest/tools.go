//go:build tools

// Package envtest pins the control-plane binaries that the tests run through
// controller-runtime's envtest: kube-apiserver and etcd, built from source at
// the versions in go.mod (see hack/envtest-build.sh). The blank imports keep
// `go mod tidy` from dropping the two main packages; the build tag keeps this
// file out of every ordinary build.
package envtest

import (
	_ "go.etcd.io/etcd/server/v3"
	_ "k8s.io/kubernetes/cmd/kube-apiserver"
)
