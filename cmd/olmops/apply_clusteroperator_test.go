//go:build !olmops_cli

package main

import (
	"context"
	"os"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/olmops/olmops/reconciler"
)

// On a cluster whose facts say OpenShift (prod-east: 4.20.3), a pass from
// the command line keeps the ClusterOperator olmops as serve does: its
// Upgradeable condition says whether the installed operators allow the
// next minor version.
func TestApplyKeepsClusterOperator(t *testing.T) {
	env := kube.Env(t)
	ctx := t.Context()
	data, err := os.ReadFile("../../reconciler/testdata/openshift/clusteroperators.yaml")
	if err != nil {
		t.Fatal(err)
	}
	crd := &apiextensionsv1.CustomResourceDefinition{}
	if err := yaml.Unmarshal(data, crd); err != nil {
		t.Fatal(err)
	}
	if err := env.CreateCRD(ctx, crd); err != nil {
		t.Fatal(err)
	}
	// Other tests of the shared control plane expect no ClusterOperators.
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), crd) })
	dir := plannedExamples(t)
	out, errOut, code := runCLI(t, "apply", "--repo", dir, "--cluster", "prod-east", "--kubeconfig", envKubeconfig(t))
	if code != exitOK {
		t.Fatalf("apply: exit %d\n%s%s", code, out, errOut)
	}
	co := &unstructured.Unstructured{}
	co.SetAPIVersion("config.openshift.io/v1")
	co.SetKind("ClusterOperator")
	if err := env.Client.Get(ctx, client.ObjectKey{Name: reconciler.ClusterOperatorName}, co); err != nil {
		t.Fatalf("no ClusterOperator %s after apply: %v", reconciler.ClusterOperatorName, err)
	}
	conds, _, _ := unstructured.NestedSlice(co.Object, "status", "conditions")
	found := false
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Upgradeable" {
			found = true
			if m["status"] != "True" || m["reason"] != reconciler.AsExpectedReason || !strings.Contains(m["message"].(string), "4.21") {
				t.Errorf("Upgradeable = %v", m)
			}
		}
	}
	if !found {
		t.Errorf("no Upgradeable condition: %v", co.Object["status"])
	}
}
