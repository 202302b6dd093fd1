package certs

import (
	"testing"
	"time"
)

// FuzzCheck feeds Check what a Secret in the cluster may hold: whatever
// it is, Check gives a verdict and never panics, and only a pair it
// accepts is served.
func FuzzCheck(f *testing.F) {
	p, err := Issue(t0, time.Hour, Hosts("s", "ns"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(p.CA, p.Cert, p.Key)
	f.Add(p.Cert, p.CA, p.Key)
	f.Add([]byte("-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"), []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, ca, cert, key []byte) {
		if Check(Pair{CA: ca, Cert: cert, Key: key}, t0, Hosts("s", "ns")) != "" {
			return
		}
		if _, err := parseCert(ca); err != nil {
			t.Fatalf("Check accepted a CA that does not parse: %v", err)
		}
	})
}

func BenchmarkCheck(b *testing.B) {
	hosts := Hosts("demo-service", "ops")
	p, err := Issue(t0, DefaultValidity, hosts)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if why := Check(p, t0, hosts); why != "" {
			b.Fatal(why)
		}
	}
}

func BenchmarkIssue(b *testing.B) {
	hosts := Hosts("demo-service", "ops")
	for b.Loop() {
		if _, err := Issue(t0, DefaultValidity, hosts); err != nil {
			b.Fatal(err)
		}
	}
}
