package pushhook

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// spaces reads as n bytes of JSON whitespace, without holding them.
type spaces struct{ n int64 }

func (s *spaces) Read(p []byte) (int, error) {
	if s.n <= 0 {
		return 0, io.EOF
	}
	k := min(int64(len(p)), s.n)
	for i := range k {
		p[i] = ' '
	}
	s.n -= k
	return int(k), nil
}

func TestHandlerBodySize(t *testing.T) {
	gh := fixture(t, "github-push.json")
	atLimit := append(bytes.Clone(gh), bytes.Repeat([]byte(" "), MaxBodyBytes-len(gh))...)
	tests := []struct {
		name     string
		body     func() io.Reader
		length   int64 // the declared Content-Length; -1 when unknown
		wantCode int
	}{
		{name: "declared past the limit", body: func() io.Reader { return bytes.NewReader(gh) },
			length: MaxBodyBytes + 1, wantCode: http.StatusRequestEntityTooLarge},
		{name: "streamed past the limit", body: func() io.Reader { return io.MultiReader(bytes.NewReader(gh), &spaces{n: MaxBodyBytes}) },
			length: -1, wantCode: http.StatusRequestEntityTooLarge},
		{name: "exactly at the limit", body: func() io.Reader { return bytes.NewReader(atLimit) },
			length: int64(len(atLimit)), wantCode: http.StatusAccepted},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &notifier{queued: 1}
			r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, Path, tt.body())
			r.ContentLength = tt.length
			// The signature is right for the body at the limit only; past
			// it, the size must be refused before the signature matters.
			r.Header = githubHeaders("push", testSecret, atLimit)
			w := httptest.NewRecorder()
			Handler([]byte(testSecret), n.notify).ServeHTTP(w, r)
			if w.Code != tt.wantCode {
				t.Fatalf("status %d, want %d; reply %q", w.Code, tt.wantCode, w.Body.String())
			}
			if tt.wantCode == http.StatusRequestEntityTooLarge {
				if len(n.pushes) != 0 {
					t.Errorf("notify called for a body past the limit")
				}
				if !strings.Contains(w.Body.String(), "body larger than 26214400 bytes") {
					t.Errorf("reply %q", w.Body.String())
				}
			}
		})
	}
}

func TestHandlerNilNotifyPanicsAtConstruction(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Handler(secret, nil) did not panic")
		}
	}()
	Handler([]byte(testSecret), nil)
}

func TestHandlerKeepsItsCopyOfTheSecret(t *testing.T) {
	gh := fixture(t, "github-push.json")
	secret := []byte(testSecret)
	n := &notifier{queued: 1}
	h := Handler(secret, n.notify)
	secret[0] ^= 0xff // the caller reuses its buffer
	w := deliver(t, h, http.MethodPost, githubHeaders("push", testSecret, gh), gh, &logBuffer{})
	if w.Code != http.StatusAccepted {
		t.Fatalf("status %d, want 202; reply %q", w.Code, w.Body.String())
	}
}
