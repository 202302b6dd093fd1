package apply

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func TestUpgradeableMessage(t *testing.T) {
	tests := []struct {
		name string
		spec string
		want string
	}{
		{"no conditions", `spec: {}`, ""},
		{"spec False", `spec: {conditions: [{type: Upgradeable, status: "False", reason: Backup, message: backup in progress}]}`, "backup in progress"},
		{"status False", `status: {conditions: [{type: Upgradeable, status: "False", message: migrating}]}`, "migrating"},
		{"status True, spec False", `
spec: {conditions: [{type: Upgradeable, status: "False", message: from the operator}]}
status: {conditions: [{type: Upgradeable, status: "True"}]}`, "from the operator"},
		{"reason when no message", `spec: {conditions: [{type: Upgradeable, status: "False", reason: Migrating}]}`, "Migrating"},
		{"neither", `spec: {conditions: [{type: Upgradeable, status: "False"}]}`, "no reason given"},
		{"unknown is not False", `spec: {conditions: [{type: Upgradeable, status: "Unknown", message: m}]}`, ""},
		{"other types", `spec: {conditions: [{type: Ready, status: "False", message: m}]}`, ""},
		{"override True wins", `
spec:
  conditions: [{type: Upgradeable, status: "False", message: m}]
  overrides: [{type: Upgradeable, status: "True"}]`, ""},
		{"override False", `spec: {overrides: [{type: Upgradeable, status: "False", message: admin says wait}]}`, "admin says wait"},
		{"malformed", `spec: {conditions: [nope, 3]}`, ""},
		{"status observed at the generation", `
metadata: {generation: 2}
status: {conditions: [{type: Upgradeable, status: "True", observedGeneration: 2}]}`, ""},
		{"status lags the generation", `
metadata: {generation: 3}
spec: {conditions: [{type: Upgradeable, status: "True"}]}
status: {conditions: [{type: Upgradeable, status: "True", observedGeneration: 2}]}`,
			"the OperatorCondition status Upgradeable=True is outdated (observedGeneration 2, generation 3)"},
		{"override True wins over a lagging status", `
metadata: {generation: 3}
spec: {overrides: [{type: Upgradeable, status: "True"}]}
status: {conditions: [{type: Upgradeable, status: "False", observedGeneration: 2}]}`, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Decoded as the API server's objects are: numbers as int64.
			j, err := yaml.YAMLToJSON([]byte("apiVersion: operators.coreos.com/v2\nkind: OperatorCondition\n" + tt.spec))
			if err != nil {
				t.Fatal(err)
			}
			oc := &unstructured.Unstructured{}
			if err := oc.UnmarshalJSON(j); err != nil {
				t.Fatal(err)
			}
			if got := upgradeableMessage(oc); got != tt.want {
				t.Errorf("upgradeableMessage = %q, want %q", got, tt.want)
			}
		})
	}
}
