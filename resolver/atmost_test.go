package resolver

import (
	"slices"
	"testing"

	mm "github.com/Masterminds/semver/v3"

	"github.com/olmops/olmops/catalog/semver"
)

// AtMost caps the path where a promotion lets it go, under both policies,
// and a cap at the installed version keeps the subscription where it is.
func TestUpgradePathAtMost(t *testing.T) {
	cats := chainCatalog(t)
	v := func(s string) *semver.Version { return mm.MustParse(s) }
	tests := []struct {
		name string
		req  Request
		want []string
	}{
		{"classic stops at the cap", Request{Package: "etcd", Channels: []string{"stable"}, Policy: Classic, Installed: &Installed{Bundle: "etcd.v0.9.0"}, AtMost: v("0.9.4")},
			[]string{"etcd.v0.9.2", "etcd.v0.9.4"}},
		{"semver stops at the cap", Request{Package: "etcd", Channels: []string{"stable"}, Installed: &Installed{Bundle: "etcd.v0.9.0"}, AtMost: v("0.9.2")},
			[]string{"etcd.v0.9.2"}},
		{"a cap at the installed version stays", Request{Package: "etcd", Channels: []string{"stable"}, Installed: &Installed{Bundle: "etcd.v0.9.2"}, AtMost: v("0.9.2")}, nil},
		{"a fresh install under the cap", Request{Package: "etcd", Channels: []string{"stable"}, Policy: Classic, AtMost: v("0.9.4")},
			[]string{"etcd.v0.9.4"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path, err := UpgradePath(cats, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, h := range path {
				got = append(got, h.Edge.To)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("path = %v, want %v", got, tt.want)
			}
		})
	}
}
