// Package ocitest runs a real OCI registry on 127.0.0.1 for tests
// (go-containerregistry's pkg/registry, an implementation of the
// distribution protocol) and builds real images from files to push to it.
package ocitest
