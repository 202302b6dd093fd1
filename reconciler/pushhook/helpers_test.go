package pushhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
)

const testSecret = "It's a Secret to Everybody"

// hmacHex is what a forge computes over what it signs.
func hmacHex(secret string, content []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(content)
	return hex.EncodeToString(mac.Sum(nil))
}

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// edit replaces old, which must occur, with new in a fixture.
func edit(t *testing.T, body []byte, old, new string) []byte {
	t.Helper()
	if !bytes.Contains(body, []byte(old)) {
		t.Fatalf("fixture lacks %q", old)
	}
	return bytes.ReplaceAll(body, []byte(old), []byte(new))
}

// formBody encodes a JSON payload as GitHub's form-encoded delivery does.
func formBody(payload []byte) []byte {
	return []byte(url.Values{"payload": {string(payload)}}.Encode())
}

// githubHeaders are the headers of a GitHub delivery of body.
func githubHeaders(event, secret string, body []byte) http.Header {
	return http.Header{
		"Content-Type":        {"application/json"},
		"X-Github-Event":      {event},
		"X-Github-Delivery":   {"72d3162e-cc78-11e3-81ab-4c9367dc0958"},
		"X-Hub-Signature-256": {"sha256=" + hmacHex(secret, body)},
		"User-Agent":          {"GitHub-Hookshot/044aadd"},
	}
}

// giteaHeaders are the headers a Gitea delivery carries: its own and
// GitHub's, all signing signed (the JSON payload).
func giteaHeaders(event, secret string, signed []byte) http.Header {
	sig := hmacHex(secret, signed)
	return http.Header{
		"Content-Type":        {"application/json"},
		"X-Gitea-Event":       {event},
		"X-Gogs-Event":        {event},
		"X-Github-Event":      {event},
		"X-Gitea-Signature":   {sig},
		"X-Gogs-Signature":    {sig},
		"X-Hub-Signature-256": {"sha256=" + sig},
	}
}

// gitlabHeaders are the headers of a GitLab delivery.
func gitlabHeaders(event, token string) http.Header {
	return http.Header{
		"Content-Type":   {"application/json"},
		"X-Gitlab-Event": {event},
		"X-Gitlab-Token": {token},
	}
}

// with returns h with name set to value (or deleted when value is "").
func with(h http.Header, name, value string) http.Header {
	h = h.Clone()
	if value == "" {
		h.Del(name)
	} else {
		h.Set(name, value)
	}
	return h
}

// notifier records the pushes a Handler hands over.
type notifier struct {
	mu     sync.Mutex
	pushes []Push
	queued int
}

func (n *notifier) notify(_ context.Context, p Push) int {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.pushes = append(n.pushes, p)
	return n.queued
}

// logBuffer collects what a Handler logs at V(1).
type logBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *logBuffer) logger() logr.Logger {
	return funcr.New(func(prefix, args string) {
		l.mu.Lock()
		defer l.mu.Unlock()
		l.b.WriteString(prefix + " " + args + "\n")
	}, funcr.Options{Verbosity: 1})
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// deliver sends one request to h with a logger in its context.
func deliver(t *testing.T, h http.Handler, method string, header http.Header, body []byte, logs *logBuffer) *httptest.ResponseRecorder {
	t.Helper()
	ctx := logr.NewContext(t.Context(), logs.logger())
	r := httptest.NewRequestWithContext(ctx, method, Path, bytes.NewReader(body))
	r.Header = header.Clone()
	if r.Header == nil {
		r.Header = http.Header{}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}
