package plan

import (
	"fmt"
	"slices"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"

	"github.com/olmops/olmops/render"
	"github.com/olmops/olmops/subscription"
)

// watchNamespaceKey is the one inline configuration key OLM v1 defines for
// registry+v1 bundles.
const watchNamespaceKey = "watchNamespace"

// renderOptions says how to install a bundle for a member: in its
// namespace, watching what the namespace's OperatorGroup targets, or
// without one what OLM v1 would pick (all namespaces, else its own).
func (pl *planner) renderOptions(m member, b *render.Bundle, namespace string) (render.Options, error) {
	opts := render.Options{Namespace: namespace}
	if og := pl.in.Objects.OperatorGroup(namespace); og != nil {
		opts.OperatorGroup, opts.TargetNamespaces = og.Name, og.TargetNamespaces
	} else if !supports(b.CSV, operatorsv1alpha1.InstallModeTypeAllNamespaces) && supports(b.CSV, operatorsv1alpha1.InstallModeTypeOwnNamespace) {
		opts.TargetNamespaces = []string{namespace}
	}
	if m.intent == nil {
		return opts, nil
	}
	switch m.intent.Kind {
	case subscription.KindSubscription:
		opts.Config = m.intent.Config
	case subscription.KindClusterExtension:
		for k, v := range m.intent.Config {
			ns, ok := v.(string)
			if k != watchNamespaceKey || !ok {
				return opts, fmt.Errorf("%s: spec.config.inline.%s: registry+v1 bundles take only %s (a string)", m.intent.Pos, k, watchNamespaceKey)
			}
			opts.TargetNamespaces = []string{ns}
		}
	}
	return opts, nil
}

func supports(csv *operatorsv1alpha1.ClusterServiceVersion, mode operatorsv1alpha1.InstallModeType) bool {
	return csv != nil && slices.ContainsFunc(csv.Spec.InstallModes, func(m operatorsv1alpha1.InstallMode) bool {
		return m.Type == mode && m.Supported
	})
}
