package v1alpha1

import (
	"fmt"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/yamllimit/yamllimittest"
)

func TestLoadYAMLLimits(t *testing.T) {
	tests := []struct {
		name, data, wantErr string
	}{
		{name: "bomb", data: "apiVersion: olmops.io/v1alpha1\nkind: Repository\n" + yamllimittest.Laughs("x"), wantErr: "olmops.yaml:12: YAML aliases expand the document by more than 100000 nodes (the limit)"},
		{name: "size over the limit", data: "# " + strings.Repeat("x", MaxConfigBytes) + "\n", wantErr: fmt.Sprintf("olmops.yaml: file is %d bytes, more than the %d allowed", MaxConfigBytes+3, MaxConfigBytes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, load := range []func(string, []byte) error{
				func(p string, d []byte) error { _, err := Load(p, d); return err },
				func(p string, d []byte) error { _, err := LoadCluster(p, d); return err },
			} {
				err := load("olmops.yaml", []byte(tt.data))
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
			}
		})
	}
}
