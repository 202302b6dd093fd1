package gitsource

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestCappedTransport covers the responses git http-backend does not send:
// a Content-Length over the budget is refused before its body is read,
// and requests without a budget pass through.
func TestCappedTransport(t *testing.T) {
	body := strings.Repeat("x", 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Length", "1000")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	c := &http.Client{Transport: cappedTransport{next: http.DefaultTransport}}
	tests := []struct {
		name      string
		limit     int64
		announced int64 // of the *FetchTooLargeError; 0: none wanted
	}{
		{name: "no budget", limit: 0},
		{name: "at the limit", limit: 1000},
		{name: "announced over the limit", limit: 999, announced: 1000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, budget := withFetchBudget(t.Context(), tt.limit)
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
			res, err := c.Do(req)
			var tooLarge *FetchTooLargeError
			if tt.announced > 0 {
				if !errors.As(err, &tooLarge) || tooLarge.Announced != tt.announced || tooLarge.Read != 0 {
					t.Fatalf("error %v, want a FetchTooLargeError announcing %d, nothing read", err, tt.announced)
				}
				if budget.err() == nil {
					t.Error("the budget does not remember the refusal")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			data, err := io.ReadAll(res.Body)
			res.Body.Close()
			if err != nil || len(data) != len(body) || budget.err() != nil {
				t.Errorf("read %d bytes, %v (budget: %v), want all %d", len(data), err, budget.err(), len(body))
			}
		})
	}
}

func TestByteSize(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 64 << 10: "64 KiB", 65980: "64.4 KiB", 512 << 20: "512 MiB", 3 << 30: "3 GiB"} {
		if got := byteSize(n); got != want {
			t.Errorf("byteSize(%d) = %q, want %q", n, got, want)
		}
	}
}
