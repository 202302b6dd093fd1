package subscription

import (
	"os"
	"path/filepath"
	"testing"
)

func FuzzParse(f *testing.F) {
	examples, _ := filepath.Glob("../examples/clusters/*/subscriptions/*.yaml")
	for _, p := range examples {
		if data, err := os.ReadFile(p); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: a, namespace: b}\nspec: {name: c, config: {env: [{name: x, value: &v y}], x: *v}}\n"))
	f.Add([]byte("a: &a [*a]\n"))
	f.Add([]byte("{\"kind\": \"ClusterExtension\", \"apiVersion\": \"olm.operatorframework.io/v1\", \"spec\": {\"source\": null}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		intents, err := Parse("f.yaml", data)
		if err != nil {
			return
		}
		for _, in := range intents {
			if err := in.Validate(); err != nil {
				t.Errorf("Parse accepted an intent Validate rejects: %v", err)
			}
		}
	})
}
