package apply

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

// rolledOut are the conditions the Deployment controller sets once a
// rollout completed.
const rolledOut = `
  conditions:
  - {type: Available, status: "True", reason: MinimumReplicasAvailable}
  - {type: Progressing, status: "True", reason: NewReplicaSetAvailable}`

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
spec: {replicas: 2, progressDeadlineSeconds: 600}
status:
  observedGeneration: 2
  replicas: 2
  updatedReplicas: 2
  readyReplicas: 2
  availableReplicas: 2` + rolledOut, ""},
		{"replicas defaults to one", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 1}
status:
  observedGeneration: 1
  replicas: 1
  updatedReplicas: 1
  readyReplicas: 1
  availableReplicas: 1` + rolledOut, ""},
		{"scaled to zero", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 3}
spec: {replicas: 0, progressDeadlineSeconds: 600}
status:
  observedGeneration: 3` + rolledOut, ""},
		{"not observed", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 2}
status: {observedGeneration: 1, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1}`,
			"Deployment op: InProgress: Deployment generation is 2, but latest observed generation is 1"},
		{"just created", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 1}
spec: {replicas: 1}`, "Deployment op: InProgress: Replicas: 0/1"},
		{"updating", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 2}
spec: {replicas: 3, progressDeadlineSeconds: 600}
status:
  observedGeneration: 2
  replicas: 3
  updatedReplicas: 1
  conditions:
  - {type: Available, status: "True"}
  - {type: Progressing, status: "True", reason: ReplicaSetUpdated, message: ReplicaSet "op-2" is progressing.}`,
			`Deployment op: InProgress: Updated: 1/3`},
		{"progress deadline exceeded", `
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
			`Deployment op: Failed: Progress deadline exceeded: ReplicaSet "op-1" has timed out progressing.`},
		{"old replicas left", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, generation: 2}
status: {observedGeneration: 2, replicas: 2, updatedReplicas: 1, availableReplicas: 2}`,
			"Deployment op: InProgress: Pending termination: 1"},
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
			`Deployment op: InProgress: Available: 0/1: pods "op-" is forbidden: exceeded quota`},
		{"deleting", `
apiVersion: apps/v1
kind: Deployment
metadata: {name: op, deletionTimestamp: "2024-01-01T00:00:00Z"}`, "Deployment op: Terminating: Resource scheduled for deletion"},
		{"StatefulSet rolling", `
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db, generation: 1}
spec: {replicas: 2}
status: {observedGeneration: 1, replicas: 2, readyReplicas: 1, currentReplicas: 2, updatedReplicas: 2}`,
			"StatefulSet db: InProgress: Ready: 1/2"},
		{"DaemonSet not scheduled", `
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, generation: 1}
status: {observedGeneration: 1, desiredNumberScheduled: 3, currentNumberScheduled: 1}`,
			"DaemonSet agent: InProgress: Current: 1/3"},
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
			`CustomResourceDefinition widgets.example.com: Failed: "Widget" is already in use`},
		{"CRD without status", `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}`, "CustomResourceDefinition widgets.example.com: InProgress: Install in progress"},
		{"APIService available", `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.api.example.com}
status: {conditions: [{type: Available, status: "True", reason: Passed}]}`, ""},
		{"APIService without backend", `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.api.example.com}
status:
  conditions:
  - {type: Available, status: "False", reason: MissingEndpoints, message: endpoints for service/api in "ns" have no addresses}`,
			`APIService v1.api.example.com: InProgress: not Available: MissingEndpoints: endpoints for service/api in "ns" have no addresses`},
		{"APIService not yet checked", `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata: {name: v1.api.example.com}`, "APIService v1.api.example.com: InProgress: not Available"},
		{"LoadBalancer Service without address", `
apiVersion: v1
kind: Service
metadata: {name: lb}
spec: {type: LoadBalancer}`, "Service lb: InProgress: ClusterIP not set. Service type: LoadBalancer"},
		{"custom resource not Ready", `
apiVersion: example.com/v1
kind: Widget
metadata: {name: w}
status: {conditions: [{type: Ready, status: "False", reason: Waiting, message: waiting for the database}]}`,
			"Widget w: InProgress: waiting for the database"},
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
			ok, why := healthOf(decode(t, tt.object))
			if ok != (tt.want == "") || why != tt.want {
				t.Errorf("healthOf = %v, %q; want %q", ok, why, tt.want)
			}
		})
	}
}

// decode reads a YAML object as the API machinery would: integers as
// int64, which kstatus requires.
func decode(tb testing.TB, doc string) *unstructured.Unstructured {
	tb.Helper()
	j, err := yaml.YAMLToJSON([]byte(doc))
	if err != nil {
		tb.Fatal(err)
	}
	obj := &unstructured.Unstructured{}
	if err := obj.UnmarshalJSON(j); err != nil {
		tb.Fatal(err)
	}
	return obj
}
