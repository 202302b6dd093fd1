package certs

import (
	"crypto/tls"
	"crypto/x509"
	"net"
	"strings"
	"testing"
	"time"
)

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func mustIssue(tb testing.TB, now time.Time, validity time.Duration, hosts []string) Pair {
	tb.Helper()
	p, err := Issue(now, validity, hosts)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// handshake serves p on 127.0.0.1 and says whether a client trusting
// bundle accepts it as serverName.
func handshake(tb testing.TB, p Pair, bundle []byte, serverName string) error {
	tb.Helper()
	cert, err := tls.X509KeyPair(p.Cert, p.Key)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12})
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		_ = c.(*tls.Conn).Handshake()
	}()
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(bundle) {
		tb.Fatal("bundle holds no certificate")
	}
	c, err := tls.DialWithDialer(&net.Dialer{Timeout: 10 * time.Second}, "tcp", ln.Addr().String(), &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12})
	if err != nil {
		return err
	}
	return c.Close()
}

func TestIssueServesItsHosts(t *testing.T) {
	hosts := Hosts("demo-service", "ops")
	if want := "demo-service.ops,demo-service.ops.svc,demo-service.ops.svc.cluster.local"; strings.Join(hosts, ",") != want {
		t.Fatalf("Hosts = %v, want %s", hosts, want)
	}
	p := mustIssue(t, time.Now(), time.Hour, hosts)
	for _, h := range hosts {
		if err := handshake(t, p, p.CA, h); err != nil {
			t.Errorf("%s: %v", h, err)
		}
	}
	if err := handshake(t, p, p.CA, "other-service.ops.svc"); err == nil {
		t.Error("the certificate serves a name it was not issued for")
	}
	other := mustIssue(t, time.Now(), time.Hour, hosts)
	if err := handshake(t, p, other.CA, hosts[1]); err == nil {
		t.Error("another CA trusts the certificate")
	}
}

func TestCheck(t *testing.T) {
	hosts := Hosts("demo-service", "ops")
	validity := 10 * time.Hour
	p := mustIssue(t, t0, validity, hosts)
	other := mustIssue(t, t0, validity, hosts)
	tests := []struct {
		name string
		p    Pair
		now  time.Time
		want string // a part of the reason; "" for none
	}{
		{"fresh", p, t0, ""},
		{"most of its life left", p, t0.Add(validity * 3 / 4), ""},
		{"less than a fifth left", p, t0.Add(validity * 17 / 20), "rotated from"},
		{"expired", p, t0.Add(validity + time.Hour), "rotated from"},
		{"not yet valid", p, t0.Add(-time.Hour), "not valid before"},
		{"other hosts", p, t0, ""},
		{"key of another pair", Pair{CA: p.CA, Cert: p.Cert, Key: other.Key}, t0, "key:"},
		{"signed by another CA", Pair{CA: other.CA, Cert: p.Cert, Key: p.Key}, t0, "does not serve"},
		{"no CA", Pair{Cert: p.Cert, Key: p.Key}, t0, "CA:"},
		{"two CAs", Pair{CA: append(append([]byte{}, p.CA...), other.CA...), Cert: p.Cert, Key: p.Key}, t0, "CA:"},
		{"garbage", Pair{CA: p.CA, Cert: []byte("not pem"), Key: p.Key}, t0, "certificate:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := hosts
			if tt.name == "other hosts" {
				h, tt.want = Hosts("renamed-service", "ops"), "does not serve renamed-service.ops"
			}
			got := Check(tt.p, tt.now, h)
			if (got == "") != (tt.want == "") || !strings.Contains(got, tt.want) {
				t.Errorf("Check = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIssueRefusesNothing(t *testing.T) {
	if _, err := Issue(t0, 0, []string{"a"}); err == nil {
		t.Error("zero validity issued")
	}
	if _, err := Issue(t0, time.Hour, nil); err == nil {
		t.Error("no host issued")
	}
}
