package render

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	operatorsv1alpha1 "github.com/operator-framework/api/pkg/operators/v1alpha1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// scope is what an OperatorGroup would give the operator: its install mode
// and the namespaces it watches.
type scope struct {
	mode operatorsv1alpha1.InstallModeType
	// targets are sorted; nil means all namespaces.
	targets []string
}

// allNamespaces says whether the operator watches the whole cluster.
func (s scope) allNamespaces() bool { return s.targets == nil }

// annotation is the value of olm.targetNamespaces: the targets
// comma-joined, "" for all namespaces.
func (s scope) annotation() string { return strings.Join(s.targets, ",") }

// resolveScope checks the requested namespaces against the CSV's install
// modes with OLM's own rule (InstallModeSet.Supports).
func resolveScope(csv *operatorsv1alpha1.ClusterServiceVersion, ns string, requested []string) (scope, error) {
	if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
		return scope{}, fmt.Errorf("namespace %q: %s", ns, strings.Join(errs, "; "))
	}
	targets, err := normalizeTargets(requested)
	if err != nil {
		return scope{}, err
	}
	s := scope{targets: targets}
	watched := targets
	switch {
	case targets == nil:
		s.mode, watched = operatorsv1alpha1.InstallModeTypeAllNamespaces, []string{""}
	case len(targets) == 1 && targets[0] == ns:
		s.mode = operatorsv1alpha1.InstallModeTypeOwnNamespace
	case len(targets) == 1:
		s.mode = operatorsv1alpha1.InstallModeTypeSingleNamespace
	default:
		s.mode = operatorsv1alpha1.InstallModeTypeMultiNamespace
	}
	set, err := operatorsv1alpha1.NewInstallModeSet(csv.Spec.InstallModes)
	if err != nil {
		return scope{}, fmt.Errorf("ClusterServiceVersion %s: %w", csv.Name, err)
	}
	if err := set.Supports(ns, watched); err != nil {
		return scope{}, fmt.Errorf("ClusterServiceVersion %s cannot be installed in namespace %s for %s (%w); it supports %s",
			csv.Name, ns, describeTargets(s), err, supportedModes(csv))
	}
	return s, nil
}

// normalizeTargets sorts and deduplicates target namespaces; [""] is the
// way an OperatorGroup's status writes "all namespaces".
func normalizeTargets(in []string) ([]string, error) {
	if len(in) == 0 || (len(in) == 1 && in[0] == "") {
		return nil, nil
	}
	out := slices.Clone(in)
	slices.Sort(out)
	out = slices.Compact(out)
	for _, t := range out {
		if t == "" {
			return nil, errors.New(`target namespaces: "" (all namespaces) cannot be combined with named namespaces`)
		}
		if errs := validation.IsDNS1123Label(t); len(errs) > 0 {
			return nil, fmt.Errorf("target namespace %q: %s", t, strings.Join(errs, "; "))
		}
	}
	return out, nil
}

func describeTargets(s scope) string {
	if s.allNamespaces() {
		return "all namespaces (AllNamespaces)"
	}
	return fmt.Sprintf("target namespaces %s (%s)", strings.Join(s.targets, ", "), s.mode)
}

func supportedModes(csv *operatorsv1alpha1.ClusterServiceVersion) string {
	var ms []string
	for _, m := range csv.Spec.InstallModes {
		if m.Supported {
			ms = append(ms, string(m.Type))
		}
	}
	if len(ms) == 0 {
		return "no install mode"
	}
	return strings.Join(ms, ", ")
}
