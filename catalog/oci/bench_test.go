package oci_test

import (
	"encoding/base64"
	"testing"
	"time"

	"github.com/olmops/olmops/catalog/oci"
	"github.com/olmops/olmops/catalog/oci/ocitest"
)

// bigBundle pushes the etcd bundle plus a ConfigMap of 5 MB of
// incompressible data, and returns it by digest.
func bigBundle(b *testing.B, reg *ocitest.Registry) string {
	files := etcdBundle(b)
	data := base64.StdEncoding.EncodeToString(noise(5 << 20 * 3 / 4))
	files["manifests/configmap-payload.yaml"] = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: payload\nbinaryData:\n  payload: " + data + "\n"
	return reg.Push(b, reg.Ref("olmops/big-bundle:v1"), ocitest.Image(b, nil, ocitest.Layer(b, ocitest.Files(files)...)))
}

// BenchmarkPullBundle pulls a 5 MB bundle from a loopback registry: cold
// into an empty cache each time (target < 300 ms), and warm from the cache
// (target < 5 ms).
func BenchmarkPullBundle(b *testing.B) {
	reg := ocitest.NewRegistry(b)
	ref := bigBundle(b, reg)
	b.Run("cold", func(b *testing.B) {
		var total time.Duration
		for b.Loop() {
			b.StopTimer()
			p := newPuller(b, oci.Options{CacheDir: b.TempDir()})
			b.StartTimer()
			start := time.Now()
			if _, err := p.Bundle(b.Context(), ref); err != nil {
				b.Fatal(err)
			}
			total += time.Since(start)
		}
		b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms/pull")
	})
	b.Run("warm", func(b *testing.B) {
		p := newPuller(b, oci.Options{CacheDir: b.TempDir()})
		if _, err := p.Bundle(b.Context(), ref); err != nil {
			b.Fatal(err)
		}
		before := reg.Requests()
		start := time.Now()
		for b.Loop() {
			if _, err := p.Bundle(b.Context(), ref); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(time.Since(start).Microseconds())/1000/float64(b.N), "ms/pull")
		if n := reg.Requests() - before; n != 0 {
			b.Errorf("cached pulls made %d requests", n)
		}
	})
}
