// Package kubetest gives tests a real kube-apiserver and etcd, run through
// controller-runtime's envtest from the binaries that `make envtest` builds
// (pinned in tools/envtest) and names in KUBEBUILDER_ASSETS.
//
// A package shares one control plane across its tests:
//
//	var kube = kubetest.NewShared(kubetest.WithOperatorConditionCRD())
//
//	func TestMain(m *testing.M) { os.Exit(kube.Run(m)) }
//
//	func TestApply(t *testing.T) {
//		env := kube.Env(t)
//		ns := env.NewNamespace(t)
//		...
//	}
//
// The control plane starts on the first Env call, so runs that select no
// test needing it (benchmarks and fuzzing with -run '^$', -list) never pay
// for it. Without KUBEBUILDER_ASSETS such tests fail rather than skip: they
// are meant to run through `make test`, which builds and sets it.
package kubetest
