package oci_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
)

// The source registry is down (or lacks the image); mirrors serve it under
// a rewritten repository, as with an ImageDigestMirrorSet.
func TestMirrors(t *testing.T) {
	source := ocitest.NewRegistry(t)
	source.Close()
	down := ocitest.NewRegistry(t)
	down.Close()
	mirror := ocitest.NewRegistry(t)
	empty := ocitest.NewRegistry(t)
	byDigest := pushBundle(t, mirror, "mirror/team/etcd-bundle:v0.9.4")
	digest := byDigest[strings.LastIndex(byDigest, "@"):]

	tests := []struct {
		name    string
		image   string
		mirrors []oci.Mirror
		reason  error
	}{
		{name: "by digest", image: source.Ref("team/etcd-bundle" + digest),
			mirrors: []oci.Mirror{{Source: source.Host + "/team", Mirrors: []string{mirror.Host + "/mirror/team"}}}},
		{name: "by tag", image: source.Ref("team/etcd-bundle:v0.9.4"),
			mirrors: []oci.Mirror{{Source: source.Host + "/team", Mirrors: []string{mirror.Host + "/mirror/team"}}}},
		{name: "first mirror down", image: source.Ref("team/etcd-bundle" + digest),
			mirrors: []oci.Mirror{{Source: source.Host, Mirrors: []string{down.Host + "/mirror", mirror.Host + "/mirror"}}}},
		{name: "first mirror without the image", image: source.Ref("team/etcd-bundle" + digest),
			mirrors: []oci.Mirror{{Source: source.Host, Mirrors: []string{empty.Host + "/mirror", mirror.Host + "/mirror"}}}},
		{name: "longest source wins", image: source.Ref("team/etcd-bundle" + digest),
			mirrors: []oci.Mirror{
				{Source: source.Host, Mirrors: []string{empty.Host}},
				{Source: source.Host + "/team/etcd-bundle", Mirrors: []string{mirror.Host + "/mirror/team/etcd-bundle"}},
			}},
		{name: "no mirror for the source", image: source.Ref("team/etcd-bundle" + digest),
			mirrors: []oci.Mirror{{Source: source.Host + "/other", Mirrors: []string{mirror.Host + "/mirror/team"}}}, reason: oci.ErrUnreachable},
		{name: "never contact source", image: source.Ref("team/etcd-bundle" + digest),
			mirrors: []oci.Mirror{{Source: source.Host, Mirrors: []string{empty.Host + "/mirror"}, NeverContactSource: true}}, reason: oci.ErrNotFound},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPuller(t, oci.Options{Mirrors: tt.mirrors})
			img, err := p.Bundle(t.Context(), tt.image)
			if tt.reason != nil {
				if err == nil || !errors.Is(err, tt.reason) || !strings.Contains(err.Error(), tt.image) {
					t.Errorf("error = %v, want %v naming the image", err, tt.reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if img.Pinned != source.Ref("team/etcd-bundle"+digest) {
				t.Errorf("Pinned = %s, want the source repository at the digest", img.Pinned)
			}
		})
	}
}

func TestMirrorOptions(t *testing.T) {
	for _, m := range []oci.Mirror{
		{Source: "Quay.io/UPPER", Mirrors: []string{"mirror.local"}},
		{Source: "quay.io", Mirrors: nil},
		{Source: "quay.io", Mirrors: []string{"bad host/x y"}},
	} {
		if _, err := oci.New(oci.Options{CacheDir: t.TempDir(), Mirrors: []oci.Mirror{m}}); err == nil || !strings.Contains(err.Error(), "mirrors[0]") {
			t.Errorf("New with mirror %+v: error %v, want one naming mirrors[0]", m, err)
		}
	}
}
