package kubetest

import (
	"fmt"
	"os"

	"github.com/operator-framework/api/crds"
	operatorsv2 "github.com/operator-framework/api/pkg/operators/v2"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
)

// Option adds to what a control plane starts with.
type Option func(*options)

type options struct {
	crdDirs     []string
	crds        []*apiextensionsv1.CustomResourceDefinition
	addToScheme []func(*runtime.Scheme) error
}

// WithCRDDirs installs the CustomResourceDefinitions found in the YAML or
// JSON files of dirs (or in files named directly) before Start returns.
func WithCRDDirs(dirs ...string) Option {
	return func(o *options) { o.crdDirs = append(o.crdDirs, dirs...) }
}

// WithCRDs installs crds before Start returns.
func WithCRDs(crds ...*apiextensionsv1.CustomResourceDefinition) Option {
	return func(o *options) { o.crds = append(o.crds, crds...) }
}

// WithScheme registers more types with the Env's Scheme, e.g. a generated
// AddToScheme for the project's own API.
func WithScheme(addToScheme ...func(*runtime.Scheme) error) Option {
	return func(o *options) { o.addToScheme = append(o.addToScheme, addToScheme...) }
}

// WithOperatorConditionCRD installs OLM's OperatorCondition CRD
// (operators.coreos.com v1 and v2, as operator-framework/api ships it) and
// registers its v2 types, the version operators write Upgradeable to.
func WithOperatorConditionCRD() Option {
	return func(o *options) {
		o.crds = append(o.crds, crds.OperatorCondition())
		o.addToScheme = append(o.addToScheme, operatorsv2.AddToScheme)
	}
}

func (o *options) scheme() (*runtime.Scheme, error) {
	s := runtime.NewScheme()
	adds := append([]func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme}, o.addToScheme...)
	for _, add := range adds {
		if err := add(s); err != nil {
			return nil, fmt.Errorf("kubetest: build the scheme: %w", err)
		}
	}
	return s, nil
}

func (o *options) checkCRDDirs() error {
	for _, dir := range o.crdDirs {
		if _, err := os.Stat(dir); err != nil {
			return fmt.Errorf("kubetest: CRD directory: %w", err)
		}
	}
	return nil
}
