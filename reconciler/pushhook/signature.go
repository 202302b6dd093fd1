package pushhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"hash"
	"net/http"
	"strings"
)

// A verifier authenticates a delivery by one forge's header.
type verifier struct {
	// header is spelled as the forge documents it, for messages; http.Header
	// canonicalises it for look-ups.
	header string
	// parse reads the header's value before a byte of the body is read:
	// it returns the MAC the body must hash to, or nil when the value alone
	// authenticates (GitLab's token, already compared). Its refusals name
	// header and never quote value.
	parse func(secret []byte, header, value string) ([]byte, error)
}

// verifiers in the order they are tried: the first header the request
// carries decides. Gitea and Forgejo send X-Hub-Signature-256 besides their
// own header, with the same HMAC, so which one wins does not matter.
var verifiers = []verifier{
	{header: "X-Hub-Signature-256", parse: parsePrefixedHMAC},
	{header: "X-Forgejo-Signature", parse: parseHexHMAC},
	{header: "X-Gitea-Signature", parse: parseHexHMAC},
	{header: "X-Gitlab-Token", parse: checkToken},
}

// pickVerifier returns the verifier for the first signature header r
// carries, or a refusal listing the headers it looked for.
func pickVerifier(h http.Header) (verifier, error) {
	for _, v := range verifiers {
		if len(h.Values(v.header)) > 0 {
			return v, nil
		}
	}
	names := make([]string, len(verifiers))
	for i, v := range verifiers {
		names[i] = v.header
	}
	msg := "unsigned request: none of " + strings.Join(names, ", ") + " is set"
	if len(h.Values("X-Hub-Signature")) > 0 {
		// GitHub's SHA-1 signature alone means the hook predates SHA-256
		// signing or a proxy dropped the header; SHA-1 is not accepted.
		msg += " (X-Hub-Signature, SHA-1, is not accepted)"
	}
	return verifier{}, refuse(http.StatusUnauthorized, msg)
}

// parsePrefixedHMAC reads GitHub's sha256=<hex HMAC-SHA256 of the body>.
func parsePrefixedHMAC(secret []byte, header, value string) ([]byte, error) {
	hexMAC, ok := strings.CutPrefix(value, "sha256=")
	if !ok {
		return nil, refuse(http.StatusUnauthorized, header+" is not of the form sha256=<hex>")
	}
	return parseHexHMAC(secret, header, hexMAC)
}

// parseHexHMAC reads Gitea's and Forgejo's bare hex HMAC-SHA256.
func parseHexHMAC(_ []byte, header, value string) ([]byte, error) {
	got, err := hex.DecodeString(value)
	if err != nil || len(got) != sha256.Size {
		return nil, refuse(http.StatusUnauthorized, header+" is not a hex HMAC-SHA256")
	}
	return got, nil
}

// checkToken checks GitLab's token, which is the secret itself. Comparing
// digests keeps the comparison constant-time in the secret's length too.
func checkToken(secret []byte, header, value string) ([]byte, error) {
	got := sha256.Sum256([]byte(value))
	want := sha256.Sum256(secret)
	if !hmac.Equal(got[:], want[:]) {
		return nil, refuse(http.StatusUnauthorized, header+" does not match the secret")
	}
	return nil, nil
}

// macs hash a body as it streams: raw over the bytes sent, payload over
// the decoded payload field of a form-encoded body, because Gitea and
// Forgejo sign the JSON payload even when they send it form-encoded.
// Either way the MAC proves the sender holds the secret and the payload
// acted on is the one it signed.
type macs struct {
	raw, payload hash.Hash
}

func newMACs(secret []byte) *macs {
	return &macs{raw: hmac.New(sha256.New, secret), payload: hmac.New(sha256.New, secret)}
}

// check compares want, from the header, with what the body hashed to.
// payloadSeen says whether a form payload field was hashed at all.
func (m *macs) check(header string, want []byte, payloadSeen bool) error {
	if hmac.Equal(want, m.raw.Sum(nil)) || (payloadSeen && hmac.Equal(want, m.payload.Sum(nil))) {
		return nil
	}
	return refuse(http.StatusUnauthorized, header+" does not match the body signed with the secret")
}
