package certs

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"
)

// DefaultValidity is how long a CA and its serving certificate live: two
// years, as OLM.
const DefaultValidity = 730 * 24 * time.Hour

// organization names the issuer in the certificates, as OLM names Red Hat.
const organization = "olmops"

// Pair is a serving certificate, its private key and the CA that signed
// it, PEM-encoded.
type Pair struct {
	CA, Cert, Key []byte
}

// Hosts are the DNS names a Service is reached by from the API server,
// the names OLM puts in its serving certificates.
func Hosts(service, namespace string) []string {
	base := service + "." + namespace
	return []string{base, base + ".svc", base + ".svc.cluster.local"}
}

// Issue makes a new CA and a serving certificate it signs for hosts, both
// valid from now for validity; the CA's private key is not kept.
func Issue(now time.Time, validity time.Duration, hosts []string) (Pair, error) {
	if validity <= 0 || len(hosts) == 0 {
		return Pair{}, errors.New("issue certificate: no validity or no host")
	}
	// A minute's slack for clocks that lag ours.
	notBefore, notAfter := now.Add(-time.Minute).UTC(), now.Add(validity).UTC()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, fmt.Errorf("issue CA: %w", err)
	}
	caSerial, err := serial()
	if err != nil {
		return Pair{}, fmt.Errorf("issue CA: %w", err)
	}
	caTmpl := &x509.Certificate{
		SerialNumber:          caSerial,
		Subject:               pkix.Name{CommonName: "olmops-ca@" + hosts[0], Organization: []string{organization}},
		NotBefore:             notBefore,
		NotAfter:              notAfter,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, caKey.Public(), caKey)
	if err != nil {
		return Pair{}, fmt.Errorf("issue CA: %w", err)
	}
	ca, err := x509.ParseCertificate(caDER)
	if err != nil {
		return Pair{}, fmt.Errorf("issue CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return Pair{}, fmt.Errorf("issue certificate: %w", err)
	}
	certSerial, err := serial()
	if err != nil {
		return Pair{}, fmt.Errorf("issue certificate: %w", err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: certSerial,
		Subject:      pkix.Name{CommonName: hosts[0], Organization: []string{organization}},
		DNSNames:     hosts,
		NotBefore:    notBefore,
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, key.Public(), caKey)
	if err != nil {
		return Pair{}, fmt.Errorf("issue certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return Pair{}, fmt.Errorf("issue certificate: %w", err)
	}
	return Pair{
		CA:   pemBlock("CERTIFICATE", caDER),
		Cert: pemBlock("CERTIFICATE", der),
		Key:  pemBlock("EC PRIVATE KEY", keyDER),
	}, nil
}

// Check says why p must be replaced at now to serve hosts; "" when it
// may stay. A certificate is replaced once less than a fifth of its life
// remains, so that rotation never races expiry.
func Check(p Pair, now time.Time, hosts []string) string {
	ca, err := parseCert(p.CA)
	if err != nil {
		return "CA: " + err.Error()
	}
	cert, err := parseCert(p.Cert)
	if err != nil {
		return "certificate: " + err.Error()
	}
	if _, err := tls.X509KeyPair(p.Cert, p.Key); err != nil {
		return "key: " + err.Error()
	}
	for _, c := range []*x509.Certificate{ca, cert} {
		if why := fresh(c, now); why != "" {
			return why
		}
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	opts := x509.VerifyOptions{Roots: roots, CurrentTime: now, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	if _, err := cert.Verify(opts); err != nil {
		return "certificate does not serve: " + err.Error()
	}
	// The chain is checked once; each name against the certificate.
	for _, h := range hosts {
		if err := cert.VerifyHostname(h); err != nil {
			return "certificate does not serve " + h + ": " + err.Error()
		}
	}
	return ""
}

// fresh says why c is not valid at now or is due for rotation.
func fresh(c *x509.Certificate, now time.Time) string {
	rotateAt := c.NotAfter.Add(-c.NotAfter.Sub(c.NotBefore) / 5)
	switch {
	case now.Before(c.NotBefore):
		return fmt.Sprintf("%s is not valid before %s", c.Subject.CommonName, c.NotBefore.Format(time.RFC3339))
	case !now.Before(rotateAt):
		return fmt.Sprintf("%s expires at %s, rotated from %s", c.Subject.CommonName, c.NotAfter.Format(time.RFC3339), rotateAt.Format(time.RFC3339))
	}
	return ""
}

// validAt says whether the PEM certificate caPEM is valid at now.
func validAt(caPEM []byte, now time.Time) bool {
	c, err := parseCert(caPEM)
	return err == nil && !now.Before(c.NotBefore) && now.Before(c.NotAfter)
}

// CAHash is the hash OLM annotates pod templates with: hex SHA-256 of the
// CA's PEM.
func CAHash(caPEM []byte) string {
	sum := sha256.Sum256(caPEM)
	return hex.EncodeToString(sum[:])
}

func parseCert(data []byte) (*x509.Certificate, error) {
	block, rest := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		return nil, errors.New("no PEM certificate")
	}
	if len(rest) > 0 {
		return nil, errors.New("more than one PEM block")
	}
	return x509.ParseCertificate(block.Bytes)
}

func pemBlock(typ string, der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// serial is a random 128-bit serial number, as RFC 5280 advises.
func serial() (*big.Int, error) {
	return rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
}
