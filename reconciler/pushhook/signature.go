package pushhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
)

// A verifier authenticates a delivery by one forge's header.
type verifier struct {
	// header is spelled as the forge documents it, for messages; http.Header
	// canonicalises it for look-ups.
	header string
	// check returns a refusal that names header and never quotes value.
	// signed holds what the forge may have signed: the body, and for a
	// form-encoded body also its payload field (see signedContents).
	check func(secret []byte, signed [][]byte, header, value string) error
}

// verifiers in the order they are tried: the first header the request
// carries decides. Gitea and Forgejo send X-Hub-Signature-256 besides their
// own header, with the same HMAC, so which one wins does not matter.
var verifiers = []verifier{
	{header: "X-Hub-Signature-256", check: checkPrefixedHMAC},
	{header: "X-Forgejo-Signature", check: checkHexHMAC},
	{header: "X-Gitea-Signature", check: checkHexHMAC},
	{header: "X-Gitlab-Token", check: checkToken},
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

// checkPrefixedHMAC checks GitHub's sha256=<hex HMAC-SHA256 of the body>.
func checkPrefixedHMAC(secret []byte, signed [][]byte, header, value string) error {
	hexMAC, ok := strings.CutPrefix(value, "sha256=")
	if !ok {
		return refuse(http.StatusUnauthorized, header+" is not of the form sha256=<hex>")
	}
	return checkHexHMAC(secret, signed, header, hexMAC)
}

// checkHexHMAC checks Gitea's and Forgejo's bare hex HMAC-SHA256 of the body.
func checkHexHMAC(secret []byte, signed [][]byte, header, value string) error {
	got, err := hex.DecodeString(value)
	if err != nil || len(got) != sha256.Size {
		return refuse(http.StatusUnauthorized, header+" is not a hex HMAC-SHA256")
	}
	for _, content := range signed {
		mac := hmac.New(sha256.New, secret)
		mac.Write(content)
		if hmac.Equal(got, mac.Sum(nil)) {
			return nil
		}
	}
	return refuse(http.StatusUnauthorized, header+" does not match the body signed with the secret")
}

// signedContents returns what a forge may have signed. GitHub signs the
// body as sent; Gitea and Forgejo sign the JSON payload even when they send
// it form-encoded, so the payload field counts too. Either way the MAC
// proves the sender holds the secret and the payload acted on is the one
// it signed.
func signedContents(contentType string, body []byte) [][]byte {
	signed := [][]byte{body}
	if mediaType(contentType) != formType {
		return signed
	}
	if payload, err := formPayload(body); err == nil {
		signed = append(signed, payload)
	}
	return signed
}

// checkToken checks GitLab's token, which is the secret itself. Comparing
// digests keeps the comparison constant-time in the secret's length too.
func checkToken(secret []byte, _ [][]byte, header, value string) error {
	got := sha256.Sum256([]byte(value))
	want := sha256.Sum256(secret)
	if !hmac.Equal(got[:], want[:]) {
		return refuse(http.StatusUnauthorized, header+" does not match the secret")
	}
	return nil
}
