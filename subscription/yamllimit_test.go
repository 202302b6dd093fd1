package subscription

import (
	"fmt"
	"strings"
	"testing"
)

// laughs is a few hundred bytes of YAML whose aliases expand to 9^8
// nodes, under key in a mapping.
func laughs(key string) string {
	var b strings.Builder
	b.WriteString(key + ":\n  a: &a [l,l,l,l,l,l,l,l,l]\n")
	for c := 'b'; c <= 'i'; c++ {
		p := string(c - 1)
		fmt.Fprintf(&b, "  %c: &%c [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n", c, c, p, p, p, p, p, p, p, p, p)
	}
	return b.String()
}

func TestParseAliasBomb(t *testing.T) {
	sub := "apiVersion: operators.coreos.com/v1alpha1\nkind: Subscription\nmetadata: {name: etcd, namespace: ops}\nspec:\n  name: etcd\n  config:\n    env: [{name: X, value: y}]\n"
	tests := []struct {
		name, data, wantErr string
	}{
		{name: "bomb", data: sub + laughs("x"), wantErr: "sub.yaml:17: YAML aliases expand the document by more than 100000 nodes (the limit)"},
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
