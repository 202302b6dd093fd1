package v1alpha1

import (
	"strings"
	"testing"
)

func TestObjectRef(t *testing.T) {
	tests := []struct {
		in      string
		want    ObjectRef
		wantErr string
	}{
		{in: "apps/v1/Deployment/ns/name", want: ObjectRef{Group: "apps", Version: "v1", Kind: "Deployment", Namespace: "ns", Name: "name"}},
		{in: "v1/ConfigMap/ns/name", want: ObjectRef{Version: "v1", Kind: "ConfigMap", Namespace: "ns", Name: "name"}},
		{in: "v1/Namespace//etcd", want: ObjectRef{Version: "v1", Kind: "Namespace", Name: "etcd"}},
		{
			in:   "apiextensions.k8s.io/v1/CustomResourceDefinition//etcdclusters.etcd.database.coreos.com",
			want: ObjectRef{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition", Name: "etcdclusters.etcd.database.coreos.com"},
		},
		{in: "/v1/ConfigMap/ns/name", wantErr: "empty group"},
		{in: "v1/ConfigMap/name", wantErr: "want [group/]version/kind/namespace/name"},
		{in: "a/b/c/d/e/f", wantErr: "want [group/]version/kind/namespace/name"},
		{in: "", wantErr: "want [group/]version/kind/namespace/name"},
		{in: "v1/ConfigMap/ns/", wantErr: "empty name"},
		{in: "apps/v1//ns/name", wantErr: "empty kind"},
		{in: "apps//Deployment/ns/name", wantErr: "empty version"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseObjectRef(tt.in)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("ParseObjectRef(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("ParseObjectRef(%q) = %+v, want %+v", tt.in, got, tt.want)
			}
			if s := got.String(); s != tt.in {
				t.Errorf("String() = %q, want %q", s, tt.in)
			}
		})
	}
}

// An inventory must read back exactly what was written: what parses
// formats to the same string, and formats back to the same ref.
func FuzzParseObjectRef(f *testing.F) {
	for _, s := range []string{"apps/v1/Deployment/ns/name", "v1/Namespace//etcd", "/v1/a/b/c", "a/b/c/d/e/f", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseObjectRef(s)
		if err != nil {
			return
		}
		if got := r.String(); got != s {
			t.Fatalf("ParseObjectRef(%q).String() = %q", s, got)
		}
		again, err := ParseObjectRef(r.String())
		if err != nil || again != r {
			t.Fatalf("ParseObjectRef(%q) = %+v, %v; want %+v", r.String(), again, err, r)
		}
	})
}
