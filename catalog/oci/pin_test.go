package oci_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
)

func TestPinRelatedImages(t *testing.T) {
	reg := ocitest.NewRegistry(t)
	operator := reg.Push(t, reg.Ref("olmops/etcd-operator:v0.9.4"), ocitest.Image(t, nil, ocitest.Layer(t, ocitest.Files(map[string]string{"bin/etcd-operator": "binary"})...)))
	bundle := pushBundle(t, reg, "olmops/etcd-bundle:v0.9.4")
	p := oci.NewPinner(newPuller(t, oci.Options{}))

	related := []fbc.RelatedImage{
		{Name: "etcd-operator", Image: reg.Ref("olmops/etcd-operator:v0.9.4")},
		{Name: "bundle", Image: bundle},
		{Name: "again", Image: reg.Ref("olmops/etcd-operator:v0.9.4")},
	}
	before := reg.Requests()
	got, err := p.PinRelatedImages(t.Context(), related)
	if err != nil {
		t.Fatal(err)
	}
	want := []fbc.RelatedImage{{Name: "etcd-operator", Image: operator}, {Name: "bundle", Image: bundle}, {Name: "again", Image: operator}}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("pinned[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	used := reg.Requests() - before
	if used == 0 {
		t.Fatal("the tag was not looked up")
	}
	// Once per run: pinning again asks the registry nothing.
	if _, err := p.PinRelatedImages(t.Context(), related); err != nil || reg.Requests()-before != used {
		t.Errorf("second pin: err %v, %d more requests; want none", err, reg.Requests()-before-used)
	}

	_, err = p.PinRelatedImages(t.Context(), []fbc.RelatedImage{{Image: reg.Ref("olmops/gone:v1")}, {Image: "quay.io/Bad Ref"}})
	if !errors.Is(err, oci.ErrNotFound) || !strings.Contains(err.Error(), "olmops/gone:v1") || !strings.Contains(err.Error(), "Bad Ref") {
		t.Errorf("error = %v, want both images named", err)
	}
	// A failure is not kept: once the tag is pushed, it pins.
	gone := reg.Push(t, reg.Ref("olmops/gone:v1"), ocitest.Image(t, nil, ocitest.Layer(t, ocitest.Files(map[string]string{"bin/gone": "binary"})...)))
	if got, err := p.Pin(t.Context(), reg.Ref("olmops/gone:v1")); err != nil || got != gone {
		t.Errorf("pin after the push = %q, %v; want %q", got, err, gone)
	}
}

func TestPinDockerHub(t *testing.T) {
	p := oci.NewPinner(newPuller(t, oci.Options{}))
	digest := "sha256:" + strings.Repeat("0", 64)
	got, err := p.Pin(t.Context(), "busybox:1.36@"+digest)
	if err != nil || got != "docker.io/library/busybox@"+digest {
		t.Errorf("Pin = %q, %v", got, err)
	}
}
