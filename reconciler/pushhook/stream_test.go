package pushhook

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

// bigPush reads as a push payload whose commits array holds n copies of
// item, generated as it is read so that the test holds none of it.
func bigPush(n int, item string) func() io.Reader {
	head := `{"ref":"refs/heads/main","after":"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c",` +
		`"repository":{"clone_url":"https://github.com/acme/gitops.git"},"commits":[`
	return func() io.Reader {
		return io.MultiReader(strings.NewReader(head), &repeat{s: item + ",", n: n}, strings.NewReader(`"last"]}`))
	}
}

type repeat struct {
	s   string
	n   int
	off int
}

func (r *repeat) Read(p []byte) (int, error) {
	w := 0
	for w < len(p) && r.n > 0 {
		k := copy(p[w:], r.s[r.off:])
		w += k
		r.off += k
		if r.off == len(r.s) {
			r.off = 0
			r.n--
		}
	}
	if w == 0 {
		return 0, io.EOF
	}
	return w, nil
}

func signReader(t *testing.T, r io.Reader) string {
	t.Helper()
	mac := hmac.New(sha256.New, []byte(testSecret))
	if _, err := io.Copy(mac, r); err != nil {
		t.Fatal(err)
	}
	return "sha256=" + hex.EncodeToString(mac.Sum(nil))
}

// TestHandlerStreamsTheBody is the attack of issue 16: bodies at the size
// limit, signed and not, cost a bounded amount of memory because the body
// streams through the HMAC and the JSON scanner instead of being held.
func TestHandlerStreamsTheBody(t *testing.T) {
	body := bigPush(1500, `"`+strings.Repeat("x", 16<<10)+`"`) // about 24 MB
	tests := []struct {
		name     string
		sig      string
		form     bool
		wantCode int
	}{
		{name: "signed", sig: signReader(t, body()), wantCode: http.StatusAccepted},
		{name: "wrong signature", sig: "sha256=" + strings.Repeat("00", 32), wantCode: http.StatusUnauthorized},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n := &notifier{queued: 1}
			h := Handler([]byte(testSecret), n.notify)
			var base runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&base)
			held := &heapSampler{r: body(), every: 1 << 20}
			r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, Path, held)
			r.Header = http.Header{"Content-Type": {jsonType}, "X-Github-Event": {"push"}, "X-Hub-Signature-256": {tt.sig}}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tt.wantCode {
				t.Fatalf("status %d, want %d; reply %q", w.Code, tt.wantCode, w.Body.String())
			}
			// Before streaming, the whole body was held: 24 MB and more.
			if got := int64(held.peak) - int64(base.HeapAlloc); got > 4<<20 {
				t.Errorf("a 24 MB delivery held %d bytes of heap, want < 4 MiB", got)
			}
			if tt.wantCode == http.StatusAccepted && (len(n.pushes) != 1 || n.pushes[0].Branch != "main") {
				t.Errorf("pushes %+v", n.pushes)
			}
		})
	}
}

func TestHandlerTokenLimit(t *testing.T) {
	tests := []struct {
		name     string
		item     string
		wantCode int
	}{
		{name: "a value at the limit", item: `"` + strings.Repeat("x", MaxTokenBytes-2) + `"`, wantCode: http.StatusAccepted},
		{name: "a value twice the limit", item: `"` + strings.Repeat("x", 2*MaxTokenBytes) + `"`, wantCode: http.StatusRequestEntityTooLarge},
		{name: "whitespace twice the limit", item: strings.Repeat(" ", 2*MaxTokenBytes) + "1", wantCode: http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := bigPush(1, tt.item)
			n := &notifier{queued: 1}
			r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, Path, body())
			r.Header = http.Header{"Content-Type": {jsonType}, "X-Github-Event": {"push"}, "X-Hub-Signature-256": {signReader(t, body())}}
			w := httptest.NewRecorder()
			Handler([]byte(testSecret), n.notify).ServeHTTP(w, r)
			if w.Code != tt.wantCode {
				t.Fatalf("status %d, want %d; reply %q", w.Code, tt.wantCode, w.Body.String())
			}
		})
	}
}

// heapSampler reads r and, every so many bytes, measures the live heap.
type heapSampler struct {
	r     io.Reader
	every int
	n     int
	peak  uint64
}

func (s *heapSampler) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.n += n
	if s.n >= s.every {
		s.n = 0
		var m runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m)
		s.peak = max(s.peak, m.HeapAlloc)
	}
	return n, err
}

// untouchable is a body the Handler must refuse without reading.
type untouchable struct{ read bool }

func (u *untouchable) Read([]byte) (int, error) { u.read = true; return 0, io.EOF }

func TestHandlerRefusesBeforeReading(t *testing.T) {
	tests := []struct {
		name   string
		header http.Header
	}{
		{name: "no signature", header: http.Header{"X-Github-Event": {"push"}}},
		{name: "malformed HMAC", header: http.Header{"X-Github-Event": {"push"}, "X-Hub-Signature-256": {"sha256=zz"}}},
		{name: "short HMAC", header: http.Header{"X-Gitea-Event": {"push"}, "X-Gitea-Signature": {"00"}}},
		{name: "wrong GitLab token", header: gitlabHeaders("Push Hook", "guess")},
		{name: "declared too large", header: githubHeaders("push", testSecret, nil)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := &untouchable{}
			r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, Path, body)
			r.Header = tt.header
			r.ContentLength = MaxBodyBytes + 1
			w := httptest.NewRecorder()
			Handler([]byte(testSecret), (&notifier{}).notify).ServeHTTP(w, r)
			if w.Code != http.StatusUnauthorized && w.Code != http.StatusRequestEntityTooLarge {
				t.Fatalf("status %d; reply %q", w.Code, w.Body.String())
			}
			if body.read {
				t.Error("the body was read before the request was refused")
			}
		})
	}
}

// TestHandlerAdmission fills every slot with a delivery whose body has not
// arrived yet: the next is refused with 429 at once, and once the slots
// drain a delivery is admitted again.
func TestHandlerAdmission(t *testing.T) {
	gh := fixture(t, "github-push.json")
	hd := Handler([]byte(testSecret), (&notifier{queued: 1}).notify)
	h := hd.(*handler)
	var wg sync.WaitGroup
	writers := make([]*io.PipeWriter, MaxInFlight)
	for i := range writers {
		pr, pw := io.Pipe()
		writers[i] = pw
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := httptest.NewRequestWithContext(t.Context(), http.MethodPost, Path, pr)
			r.Header = githubHeaders("push", testSecret, gh)
			w := httptest.NewRecorder()
			hd.ServeHTTP(w, r)
			if w.Code != http.StatusAccepted {
				t.Errorf("slow delivery: status %d; reply %q", w.Code, w.Body.String())
			}
		}()
	}
	waitFor(t, func() bool { return len(h.slots) == MaxInFlight })
	w := deliver(t, hd, http.MethodPost, githubHeaders("push", testSecret, gh), gh, &logBuffer{})
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" {
		t.Fatalf("delivery %d: status %d, Retry-After %q; reply %q", MaxInFlight+1, w.Code, w.Header().Get("Retry-After"), w.Body.String())
	}
	for _, pw := range writers {
		go func() {
			_, _ = io.Copy(pw, bytes.NewReader(gh))
			pw.Close()
		}()
	}
	wg.Wait()
	if w := deliver(t, hd, http.MethodPost, githubHeaders("push", testSecret, gh), gh, &logBuffer{}); w.Code != http.StatusAccepted {
		t.Fatalf("after the slots drained: status %d; reply %q", w.Code, w.Body.String())
	}
}

// waitFor polls cond until it holds or a deadline passes.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		runtime.Gosched()
	}
}
