package apply

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// FuzzUpgradeableMessage reads OperatorConditions as an operator (or
// anyone with write access to the object) may write them: nothing panics,
// and a condition whose status is False always yields a message.
func FuzzUpgradeableMessage(f *testing.F) {
	f.Add(`{"spec":{"conditions":[{"type":"Upgradeable","status":"False","message":"migrating"}]}}`)
	f.Add(`{"spec":{"overrides":[{"type":"Upgradeable","status":"True"}]},"status":{"conditions":[{"type":"Upgradeable","status":"False"}]}}`)
	f.Add(`{"spec":{"conditions":"not a list"},"status":{"conditions":[1,null,{"type":"Upgradeable"}]}}`)
	f.Fuzz(func(t *testing.T, doc string) {
		var obj map[string]any
		if json.Unmarshal([]byte(doc), &obj) != nil {
			return
		}
		oc := &unstructured.Unstructured{Object: obj}
		msg := upgradeableMessage(oc)
		if c := findCondition(oc, "spec", "overrides"); c != nil && c["status"] == "False" && msg == "" {
			t.Fatalf("override False gave no message: %s", doc)
		}
	})
}
