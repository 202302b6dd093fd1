package oci_test

import (
	"context"
	"fmt"
	"io/fs"
	"log"

	"github.com/olmops/olmops/catalog/oci"
)

// A bundle is pulled once; later calls with its digest read the cache.
func ExamplePuller_Bundle() {
	ctx := context.Background()
	p, err := oci.New(oci.Options{
		CacheDir: "/var/cache/olmops/images",
		Mirrors: []oci.Mirror{{
			Source:  "quay.io/operatorhubio",
			Mirrors: []string{"mirror.example.com/operatorhubio"},
		}},
	})
	if err != nil {
		log.Fatal(err)
	}
	img, err := p.Bundle(ctx, "quay.io/operatorhubio/etcd:v0.9.4")
	if err != nil {
		log.Fatal(err) // e.g. image ...: authentication failed: ...
	}
	manifests, _ := fs.Glob(img.FS, "manifests/*.yaml")
	fmt.Println(img.Pinned, manifests)
}

// A plan records the images a CSV uses by digest.
func ExamplePinner_Pin() {
	ctx := context.Background()
	p, err := oci.New(oci.Options{})
	if err != nil {
		log.Fatal(err)
	}
	pinner := oci.NewPinner(p)
	img, err := pinner.Pin(ctx, "quay.io/coreos/etcd-operator:v0.9.4")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(img) // quay.io/coreos/etcd-operator@sha256:...
}
