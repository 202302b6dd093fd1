package harness

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Paths are what a run needs from the machine and the repository, checked
// and made absolute by Find.
type Paths struct {
	Olmops   string   // the binary
	Examples string   // the example desired-state repository
	CRDs     []string // olmops' CRDs and OLM's OperatorCondition
	Assets   string   // KUBEBUILDER_ASSETS
}

// Find checks, before anything starts, that the control plane's binaries
// (KUBEBUILDER_ASSETS), the olmops binary, and examples/ and the CRDs
// under the repository root are there.
func Find(olmops, root string) (Paths, error) {
	assets := os.Getenv("KUBEBUILDER_ASSETS")
	if assets == "" {
		return Paths{}, errors.New("KUBEBUILDER_ASSETS is not set: run make envtest and export the KUBEBUILDER_ASSETS it prints")
	}
	for _, bin := range []string{"kube-apiserver", "etcd"} {
		if _, err := os.Stat(filepath.Join(assets, bin)); err != nil {
			return Paths{}, fmt.Errorf("KUBEBUILDER_ASSETS=%s has no %s: run make envtest: %w", assets, bin, err)
		}
	}
	p := Paths{Assets: assets, Olmops: olmops, Examples: filepath.Join(root, "examples"), CRDs: []string{
		filepath.Join(root, "config/crd/bases"),
		filepath.Join(root, "config/olm-crds/operators.coreos.com_operatorconditions.yaml"),
	}}
	for _, f := range []*string{&p.Olmops, &p.Examples, &p.CRDs[0], &p.CRDs[1]} {
		abs, err := filepath.Abs(*f)
		if err != nil {
			return Paths{}, err
		}
		if _, err := os.Stat(abs); err != nil {
			return Paths{}, err
		}
		*f = abs
	}
	return p, nil
}
