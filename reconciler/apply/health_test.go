package apply

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestHealthOf(t *testing.T) {
	tests := []struct {
		name   string
		object string
		want   string // "" when healthy
	}{
		{"available", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 2}
spec: {replicas: 2}
status: {observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2}`, ""},
		{"replicas defaults to one", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 1}
status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1}`, ""},
		{"scaled to zero", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 3}
spec: {replicas: 0}
status: {observedGeneration: 3}`, ""},
		{"not observed", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 2}
status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, availableReplicas: 1}`,
			"Deployment op: rollout not observed yet (generation 2, observed 1)"},
		{"updating", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 2}
spec: {replicas: 3}
status:
  observedGeneration: 2
  updatedReplicas: 1
  conditions:
  - {type: Available, status: "True"}
  - {type: Progressing, status: "False", reason: ProgressDeadlineExceeded, message: ReplicaSet "op-1" has timed out progressing.}`,
			`Deployment op: 1/3 replicas updated: ReplicaSet "op-1" has timed out progressing.`},
		{"old replicas left", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 2}
status: {observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 2}`,
			"Deployment op: 1 old replicas pending termination"},
		{"unavailable with failure", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 1}
status:
  observedGeneration: 1
  replicas: 1
  updatedReplicas: 1
  conditions:
  - {type: ReplicaFailure, status: "True", reason: FailedCreate, message: 'pods "op-" is forbidden: exceeded quota'}`,
			`Deployment op: 0/1 available: pods "op-" is forbidden: exceeded quota`},
		{"deleting", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, deletionTimestamp: "2024-01-01T00:00:00Z"}`, "Deployment op: being deleted"},
		{"CRD established", `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
status: {conditions: [{type: Established, status: "True"}]}`, ""},
		{"CRD name conflict", `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
status:
  conditions:
  - {type: NamesAccepted, status: "False", reason: KindConflict, message: '"Widget" is already in use'}
  - {type: Established, status: "False"}`,
			`CustomResourceDefinition widgets.example.com: not established: "Widget" is already in use`},
		{"CRD without status", `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}`, "CustomResourceDefinition widgets.example.com: not established"},
		{"other kinds", `
apiVersion: v1
kind: ConfigMap
metadata: {name: c}`, ""},
		{"a Deployment kind of another group", `
apiVersion: example.com/v1
kind: Deployment
metadata: {name: d, generation: 5}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			obj := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(tt.object), &obj.Object); err != nil {
				t.Fatal(err)
			}
			ok, why := healthOf(obj)
			if ok != (tt.want == "") || why != tt.want {
				t.Errorf("healthOf = %v, %q; want %q", ok, why, tt.want)
			}
		})
	}
}
