package kubetest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// assetsEnv names the folder holding the kube-apiserver and etcd binaries;
// envtest reads the same variable.
const assetsEnv = "KUBEBUILDER_ASSETS"

// A loaded CI machine running several test binaries at once can take far
// longer than envtest's 20 s default to bring etcd and the API server up.
const controlPlaneTimeout = 90 * time.Second

var errNoAssets = errors.New("kubetest: " + assetsEnv + " is not set: run the tests with `make test`, " +
	"or run `make envtest` and export the " + assetsEnv + " it prints")

// Env is a running control plane and clients for it.
type Env struct {
	// Config reaches the API server as a member of system:masters.
	Config *rest.Config
	// Client reads and writes through Config, knowing the types of Scheme.
	Client client.Client
	// Scheme holds client-go's types, CustomResourceDefinition and the
	// types that options added.
	Scheme *runtime.Scheme

	env      *envtest.Environment
	stopOnce sync.Once
	stopErr  error
}

// Start starts a control plane for one test and stops it when the test
// ends; prefer a Shared one per package, as each start costs seconds. It
// fails the test when the control plane cannot start.
func Start(t testing.TB, opts ...Option) *Env {
	t.Helper()
	env, err := start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := env.Stop(); err != nil {
			t.Errorf("kubetest: %v", err)
		}
	})
	return env
}

// Stop stops the API server and etcd and removes their data. Later calls
// return the first call's result.
func (e *Env) Stop() error {
	e.stopOnce.Do(func() {
		if err := e.env.Stop(); err != nil {
			e.stopErr = fmt.Errorf("stop the control plane: %w", err)
		}
	})
	return e.stopErr
}

// start checks everything it can before launching processes, so that bad
// options fail in milliseconds and leave nothing running.
func start(opts []Option) (*Env, error) {
	assets, err := assetsDir()
	if err != nil {
		return nil, err
	}
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	scheme, err := o.scheme()
	if err != nil {
		return nil, err
	}
	if err := o.checkCRDDirs(); err != nil {
		return nil, err
	}
	te := &envtest.Environment{
		BinaryAssetsDirectory:    assets,
		CRDDirectoryPaths:        o.crdDirs,
		CRDs:                     o.crds,
		ErrorIfCRDPathMissing:    true,
		Scheme:                   scheme,
		ControlPlaneStartTimeout: controlPlaneTimeout,
		ControlPlaneStopTimeout:  controlPlaneTimeout,
	}
	cfg, err := te.Start()
	if err != nil {
		// envtest leaves the processes running when a step after their
		// start (CRD installation) fails.
		return nil, errors.Join(fmt.Errorf("kubetest: start the control plane from %s: %w", assets, err), te.Stop())
	}
	c, err := client.New(cfg, client.Options{Scheme: scheme})
	if err != nil {
		return nil, errors.Join(fmt.Errorf("kubetest: client for %s: %w", cfg.Host, err), te.Stop())
	}
	return &Env{Config: cfg, Client: c, Scheme: scheme, env: te}, nil
}

// assetsDir returns KUBEBUILDER_ASSETS once it holds both binaries, so that
// a stale or mistyped path gets a hint instead of envtest's bare exec error.
func assetsDir() (string, error) {
	dir := os.Getenv(assetsEnv)
	if dir == "" {
		return "", errNoAssets
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(dir, bin)); err != nil {
			return "", fmt.Errorf("kubetest: %s=%s has no %s, run `make envtest`: %w", assetsEnv, dir, bin, err)
		}
	}
	return dir, nil
}
