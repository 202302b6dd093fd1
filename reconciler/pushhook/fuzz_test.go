package pushhook

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzHandler sends random deliveries: nothing panics, a wrong signature
// never reaches notify, and a body signed with the right secret is never
// refused as unsigned.
func FuzzHandler(f *testing.F) {
	for _, name := range []string{"github-push.json", "github-ping.json", "gitea-push.json", "gitlab-push.json"} {
		body, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(body, "", "push", "application/json", uint8(0), true)
		f.Add(formBody(body), "", "push", "application/x-www-form-urlencoded", uint8(1), true)
		f.Add(body, "Push Hook", "Push Hook", "application/json", uint8(3), true)
		f.Add(body, "sha256=00", "push", "application/json", uint8(0), false)
	}
	f.Add([]byte(`{"ref":"refs/heads/x","after":"00","repository":{"url":"git@h:o/r"}}`), "", "ping", "text/plain", uint8(2), true)
	f.Add([]byte(`payload=%7B%22ref`), "", "push", "application/x-www-form-urlencoded", uint8(0), true)
	f.Add([]byte(`[1,2`), "", "push", "application/json; charset=utf-8", uint8(1), true)

	f.Fuzz(func(t *testing.T, body []byte, sig, event, contentType string, forge uint8, signRight bool) {
		v := verifiers[int(forge)%len(verifiers)]
		right := rightValue(v.header, body)
		value := sig
		if signRight {
			value = right
		}
		header := http.Header{}
		header.Set(v.header, value)
		header.Set(eventHeaders[int(forge)%len(eventHeaders)], event)
		header.Set("Content-Type", contentType)

		n := &notifier{queued: int(forge) % 3}
		r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, Path, bytes.NewReader(body))
		r.Header = header
		w := httptest.NewRecorder()
		Handler([]byte(testSecret), n.notify).ServeHTTP(w, r)

		signed := value == right
		if signed && (w.Code == http.StatusUnauthorized || w.Code == http.StatusForbidden) {
			t.Fatalf("signed delivery refused with %d: %q", w.Code, w.Body.String())
		}
		if !signed && len(n.pushes) > 0 {
			t.Fatalf("a delivery with a wrong %s reached notify", v.header)
		}
		for _, p := range n.pushes {
			if p.Branch == "" || len(p.URLs) == 0 {
				t.Fatalf("notify got a push without branch or URLs: %+v", p)
			}
		}
		if !bytes.Contains(body, []byte(testSecret)) && strings.Contains(w.Body.String(), testSecret) {
			t.Fatalf("reply holds the secret: %q", w.Body.String())
		}
	})
}

// rightValue is the value header has when the forge signs body with
// testSecret.
func rightValue(header string, body []byte) string {
	switch header {
	case "X-Hub-Signature-256":
		return "sha256=" + hmacHex(testSecret, body)
	case "X-Gitlab-Token":
		return testSecret
	default:
		return hmacHex(testSecret, body)
	}
}

// FuzzSameRepository checks that SameRepository is symmetric, and
// reflexive for every URL it can read.
func FuzzSameRepository(f *testing.F) {
	seeds := [][2]string{
		{"git@github.com:o/r.git", "https://github.com/o/r"},
		{"ssh://git@github.com:22/o/r.git/", "git://GitHub.com/o/r"},
		{"https://user:pass@[::1]:8443/g/sub/r", "git@[::1]:g/sub/r"},
		{"http://h:80/o/r%2Fx", "h:o/r/x"},
		{"", "file:///srv/r.git"},
		{"ssh://h:notaport/r", "[h:22]:r"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if SameRepository(a, b) != SameRepository(b, a) {
			t.Fatalf("SameRepository(%q, %q) is not symmetric", a, b)
		}
		for _, u := range []string{a, b} {
			if _, ok := parseRepoURL(u); ok && !SameRepository(u, u) {
				t.Fatalf("SameRepository(%q, %q) = false", u, u)
			}
		}
	})
}
