package gitsource_test

import (
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/olmops/olmops/gitsource"
	"github.com/olmops/olmops/internal/gittest"
)

// TestMaxFetchSize serves a repository holding 200 KiB of random bytes,
// which no pack compresses, and caps fetches around it.
func TestMaxFetchSize(t *testing.T) {
	noise := make([]byte, 200<<10)
	rand.Read(noise)
	tests := []struct {
		name    string
		max     int64
		wantErr bool
	}{
		{name: "no cap", max: 0},
		{name: "cap above the repository", max: 1 << 20},
		{name: "cap below the repository", max: 64 << 10, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rm := newRemote(t, map[string][]byte{"olmops.yaml": []byte("kind: Repository\n")})
			opts := gitsource.Options{URL: rm.url, CacheDir: t.TempDir(), Auth: testAuth, MaxFetchSize: tt.max}
			repo, err := gitsource.Open(t.Context(), opts)
			if err != nil {
				t.Fatalf("Open before the big commit: %v", err)
			}
			head := rm.commit(t, "main", gittest.Change{Files: map[string][]byte{"big.bin": noise}})
			checkCapped(t, repo.Fetch(t.Context()), tt.max, tt.wantErr)
			if got := resolve(t, repo, "main"); (got == head) == tt.wantErr {
				t.Errorf("main = %s after the fetch, head is %s, want moved = %v", got, head, !tt.wantErr)
			}
			// A first clone is capped the same way, and leaves no cache.
			fresh := t.TempDir()
			opts.CacheDir = fresh
			_, err = gitsource.Open(t.Context(), opts)
			checkCapped(t, err, tt.max, tt.wantErr)
			if entries, _ := os.ReadDir(fresh); tt.wantErr && len(entries) > 0 {
				t.Errorf("a refused clone left %v in the cache", entries)
			}
		})
	}
}

func checkCapped(t *testing.T, err error, limit int64, wantErr bool) {
	t.Helper()
	var tooLarge *gitsource.FetchTooLargeError
	switch {
	case !wantErr && err != nil:
		t.Fatalf("fetch: %v", err)
	case !wantErr:
		return
	case !errors.As(err, &tooLarge):
		t.Fatalf("fetch error %v, want a *FetchTooLargeError", err)
	case tooLarge.Limit != limit || tooLarge.Read+tooLarge.Announced <= limit:
		t.Errorf("error %+v: want limit %d passed", tooLarge, limit)
	case !strings.Contains(err.Error(), "64 KiB"):
		t.Errorf("error %q does not name the limit", err)
	}
}
