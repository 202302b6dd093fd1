package subscription

import (
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/yamllimit/yamllimittest"
)

func TestParseAliasBomb(t *testing.T) {
	sub := "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: etcd, namespace: ops}\nspec:\n  name: etcd\n  config:\n    env: [{name: X, value: y}]\n"
	tests := []struct {
		name, data, wantErr string
	}{
		{name: "bomb", data: sub + yamllimittest.Laughs("x"), wantErr: "sub.yaml:17: YAML aliases expand the document by more than 100000 nodes (the limit)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("sub.yaml", []byte(tt.data))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want %q", err, tt.wantErr)
			}
		})
	}
}
