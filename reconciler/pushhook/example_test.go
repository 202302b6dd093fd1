package pushhook_test

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/olmops/olmops/reconciler/pushhook"
)

// olmops serve mounts the receiver only when a secret is configured; notify
// queues a fetch of each Repository whose URL and branch the push moved.
func ExampleHandler() {
	secret := []byte("It's a Secret to Everybody")
	repositories := []struct{ url, branch string }{
		{"git@github.com:acme/gitops.git", "main"},
		{"https://github.com/acme/gitops", "release/4.20"},
		{"https://github.com/acme/other.git", "main"},
	}
	notify := func(ctx context.Context, p pushhook.Push) int {
		n := 0
		for _, r := range repositories {
			if p.Matches(r.url, r.branch) {
				n++ // e.g. enqueue a reconcile.Request for it
			}
		}
		return n
	}
	mux := http.NewServeMux()
	mux.Handle(pushhook.Path, pushhook.Handler(secret, notify))

	body := `{"ref":"refs/heads/main","after":"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c",
		"repository":{"clone_url":"https://github.com/acme/gitops.git","ssh_url":"git@github.com:acme/gitops.git"}}`
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(body))
	req := httptest.NewRequest(http.MethodPost, pushhook.Path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "push")
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	w := httptest.NewRecorder()
	mux.ServeHTTP(w, req)
	fmt.Print(w.Code, " ", w.Body.String())
	// Output:
	// 202 queued 1 repository
}

func ExampleSameRepository() {
	fmt.Println(pushhook.SameRepository("git@github.com:acme/gitops.git", "https://token@github.com/acme/gitops"))
	fmt.Println(pushhook.SameRepository("https://github.com/acme/gitops", "https://github.com/Acme/gitops"))
	// Output:
	// true
	// false
}
