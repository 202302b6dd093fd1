package render

import (
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// OperatorGroup annotations OLM puts on a CSV and so on its pods.
const (
	operatorGroupAnnotation     = "olm.operatorGroup"
	operatorNamespaceAnnotation = "olm.operatorNamespace"
	targetNamespacesAnnotation  = "olm.targetNamespaces"
)

// operatorConditionEnv names the OperatorCondition an operator reads.
const operatorConditionEnv = "OPERATOR_CONDITION_NAME"

// deployments renders the install strategy's deployments.
func (r *renderer) deployments() error {
	specs := r.csv.Spec.InstallStrategy.StrategySpec.DeploymentSpecs
	raws, err := mapList(r.installSpec(), "deployments")
	if err != nil {
		return err
	}
	if len(raws) != len(specs) {
		return fmt.Errorf("the CSV lists %d deployments as written and %d as typed", len(raws), len(specs))
	}
	for i, d := range specs {
		if d.Name == "" {
			return fmt.Errorf("deployments[%d] has no name", i)
		}
		spec, ok := raws[i]["spec"].(map[string]any)
		if !ok {
			return fmt.Errorf("deployment %s has no spec", d.Name)
		}
		dep, err := r.deployment(d.Name, d.Label, spec)
		if err != nil {
			return fmt.Errorf("deployment %s: %w", d.Name, err)
		}
		if err := r.add(dep); err != nil {
			return err
		}
	}
	return nil
}

// installSpec is the CSV's spec.install.spec as written.
func (r *renderer) installSpec() map[string]any {
	m, _, _ := unstructured.NestedFieldNoCopy(r.raw.Object, "spec", "install", "spec")
	s, _ := m.(map[string]any)
	return s
}

// deployment builds one Deployment in OLM's order: webhook certificate
// mounts, pod annotations from the CSV and the OperatorGroup, the
// Subscription config, then the OperatorCondition variable.
func (r *renderer) deployment(name string, labels map[string]string, rawSpec map[string]any) (*unstructured.Unstructured, error) {
	spec, err := copyMap(rawSpec)
	if err != nil {
		return nil, err
	}
	dep := newObject("apps/v1", "Deployment", r.ns, name)
	if len(labels) > 0 {
		dep.SetLabels(maps.Clone(labels))
	}
	dep.Object["spec"] = spec
	if r.servesCerts(name) {
		if err := addCertVolumes(spec, webhookSecretName(name)); err != nil {
			return nil, err
		}
	}
	if err := r.podAnnotations(spec); err != nil {
		return nil, err
	}
	if err := r.cfg.apply(dep.Object); err != nil {
		return nil, err
	}
	if err := setContainerEnv(spec, envVar(operatorConditionEnv, r.csv.Name)); err != nil {
		return nil, err
	}
	// OLM keeps one old ReplicaSet: it never rolls back.
	spec["revisionHistoryLimit"] = int64(1)
	return dep, nil
}

// podAnnotations merges the CSV's annotations and OLM's OperatorGroup
// annotations over the pod template's, as OLM does.
func (r *renderer) podAnnotations(spec map[string]any) error {
	meta, err := pathMap(spec, "template", "metadata")
	if err != nil {
		return err
	}
	ann, err := stringMap(meta, "annotations")
	if err != nil {
		return err
	}
	maps.Copy(ann, r.csv.GetAnnotations())
	ann[operatorGroupAnnotation] = r.og
	ann[operatorNamespaceAnnotation] = r.ns
	ann[targetNamespacesAnnotation] = r.scope.annotation()
	setStringMap(meta, "annotations", ann)
	return nil
}

// setContainerEnv sets a variable in every container, replacing one of the
// same name.
func setContainerEnv(spec map[string]any, env map[string]any) error {
	pod, err := pathMap(spec, "template", "spec")
	if err != nil {
		return err
	}
	containers, err := mapList(pod, "containers")
	if err != nil {
		return err
	}
	for _, c := range containers {
		if err := mergeByName(c, "env", []map[string]any{env}); err != nil {
			return err
		}
	}
	return nil
}
