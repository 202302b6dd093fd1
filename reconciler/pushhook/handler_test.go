package pushhook

import (
	"net/http"
	"reflect"
	"strings"
	"testing"
)

func TestHandler(t *testing.T) {
	gh := fixture(t, "github-push.json")
	ghPush := &Push{
		URLs: []string{
			"https://github.com/acme/gitops.git",
			"git@github.com:acme/gitops.git",
			"git://github.com/acme/gitops.git",
			"https://github.com/acme/gitops",
		},
		Branch: "main",
		After:  "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c",
	}
	ping := fixture(t, "github-ping.json")
	tag := edit(t, gh, `"ref": "refs/heads/main"`, `"ref": "refs/tags/v1.0.0"`)
	deleted := edit(t, edit(t, gh, `"deleted": false`, `"deleted": true`),
		`"after": "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c"`, `"after": "0000000000000000000000000000000000000000"`)
	form := formBody(gh)
	gitea := fixture(t, "gitea-push.json")
	giteaPush := &Push{
		URLs: []string{
			"https://gitea.example.com/acme/gitops.git",
			"ssh://git@gitea.example.com:2222/acme/gitops.git",
			"https://gitea.example.com/acme/gitops",
			"https://gitea.example.com/api/v1/repos/acme/gitops",
		},
		Branch: "develop",
		After:  "bffeb74224043ba2feb48d137756c8a9331c449a",
	}
	gitlab := fixture(t, "gitlab-push.json")
	gitlabPush := &Push{
		URLs: []string{
			"git@gitlab.example.com:platform/gitops.git",
			"https://gitlab.example.com/platform/gitops.git",
			"https://gitlab.example.com/platform/gitops",
		},
		Branch: "main",
		After:  "da1560886d4f094c3e6c9ef40349f7d38b5d27d7",
	}
	gitlabDeleted := edit(t, gitlab, `"after": "da1560886d4f094c3e6c9ef40349f7d38b5d27d7"`,
		`"after": "0000000000000000000000000000000000000000"`)
	noRef := []byte(`{"after":"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c","repository":{"clone_url":"https://github.com/acme/gitops.git"}}`)
	noURL := []byte(`{"ref":"refs/heads/main","after":"0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c","repository":{}}`)
	badJSON := []byte(`{"ref": "refs/heads/main", "after": }`)
	badType := []byte(`{"ref": "refs/heads/main", "repository": {"clone_url": 42}}`)

	tests := []struct {
		name      string
		secret    string
		method    string // POST when empty
		header    http.Header
		body      []byte
		queued    int // what notify returns
		wantCode  int
		wantReply string
		wantPush  *Push // nil: notify must not be called
	}{
		{name: "GitHub push", header: githubHeaders("push", testSecret, gh), body: gh, queued: 2,
			wantCode: http.StatusAccepted, wantReply: "queued 2 repositories", wantPush: ghPush},
		{name: "GitHub push queuing one", header: githubHeaders("push", testSecret, gh), body: gh, queued: 1,
			wantCode: http.StatusAccepted, wantReply: "queued 1 repository", wantPush: ghPush},
		{name: "GitHub push matching nothing", header: githubHeaders("push", testSecret, gh), body: gh,
			wantCode: http.StatusOK, wantReply: "no repository matches", wantPush: ghPush},
		{name: "JSON with a charset", header: with(githubHeaders("push", testSecret, gh), "Content-Type", "application/json; charset=utf-8"),
			body: gh, queued: 1, wantCode: http.StatusAccepted, wantPush: ghPush},
		{name: "signed with another secret", header: githubHeaders("push", "guess", gh), body: gh,
			wantCode: http.StatusUnauthorized, wantReply: "X-Hub-Signature-256 does not match"},
		{name: "body changed after signing", header: githubHeaders("push", testSecret, gh), body: tag,
			wantCode: http.StatusUnauthorized, wantReply: "X-Hub-Signature-256 does not match"},
		{name: "signature without sha256= prefix", header: with(githubHeaders("push", testSecret, gh), "X-Hub-Signature-256", hmacHex(testSecret, gh)),
			body: gh, wantCode: http.StatusUnauthorized, wantReply: "X-Hub-Signature-256 is not of the form"},
		{name: "signature not hex", header: with(githubHeaders("push", testSecret, gh), "X-Hub-Signature-256", "sha256=zz"),
			body: gh, wantCode: http.StatusUnauthorized, wantReply: "X-Hub-Signature-256 is not a hex HMAC-SHA256"},
		{name: "empty signature of a hook without secret", header: with(githubHeaders("push", testSecret, gh), "X-Hub-Signature-256", "sha256="),
			body: gh, wantCode: http.StatusUnauthorized, wantReply: "X-Hub-Signature-256 is not a hex HMAC-SHA256"},
		{name: "no signature header", header: with(githubHeaders("push", testSecret, gh), "X-Hub-Signature-256", ""), body: gh,
			wantCode: http.StatusUnauthorized, wantReply: "unsigned request: none of X-Hub-Signature-256"},
		{name: "SHA-1 signature only", header: with(with(githubHeaders("push", testSecret, gh), "X-Hub-Signature-256", ""), "X-Hub-Signature", "sha1=0123"),
			body: gh, wantCode: http.StatusUnauthorized, wantReply: "X-Hub-Signature, SHA-1, is not accepted"},
		{name: "GET", method: http.MethodGet, header: githubHeaders("push", testSecret, nil),
			wantCode: http.StatusMethodNotAllowed, wantReply: "only POST"},
		{name: "PUT", method: http.MethodPut, header: githubHeaders("push", testSecret, gh), body: gh,
			wantCode: http.StatusMethodNotAllowed, wantReply: "only POST"},
		{name: "ping", header: githubHeaders("ping", testSecret, ping), body: ping, wantCode: http.StatusOK, wantReply: "pong"},
		{name: "unsigned ping", header: with(githubHeaders("ping", testSecret, ping), "X-Hub-Signature-256", ""), body: ping,
			wantCode: http.StatusUnauthorized},
		{name: "other event", header: githubHeaders("pull_request", testSecret, gh), body: gh,
			wantCode: http.StatusAccepted, wantReply: "ignored: not a push event"},
		{name: "no event header", header: with(githubHeaders("push", testSecret, gh), "X-GitHub-Event", ""), body: gh,
			wantCode: http.StatusBadRequest, wantReply: "no event header"},
		{name: "form-encoded payload", body: form, queued: 1,
			header:   with(githubHeaders("push", testSecret, form), "Content-Type", "application/x-www-form-urlencoded"),
			wantCode: http.StatusAccepted, wantPush: ghPush},
		{name: "form-encoded without payload field", body: []byte("other=1"),
			header:   with(githubHeaders("push", testSecret, []byte("other=1")), "Content-Type", "application/x-www-form-urlencoded"),
			wantCode: http.StatusBadRequest, wantReply: "no payload field"},
		{name: "unsupported media type", header: with(githubHeaders("push", testSecret, gh), "Content-Type", "text/plain"), body: gh,
			wantCode: http.StatusUnsupportedMediaType, wantReply: "Content-Type must be application/json"},
		{name: "no Content-Type", header: with(githubHeaders("push", testSecret, gh), "Content-Type", ""), body: gh,
			wantCode: http.StatusUnsupportedMediaType},
		{name: "tag push", header: githubHeaders("push", testSecret, tag), body: tag,
			wantCode: http.StatusAccepted, wantReply: "ignored: refs/tags/v1.0.0 is not a branch"},
		{name: "branch deletion", header: githubHeaders("push", testSecret, deleted), body: deleted,
			wantCode: http.StatusAccepted, wantReply: "ignored: branch main was deleted"},
		{name: "malformed JSON", header: githubHeaders("push", testSecret, badJSON), body: badJSON,
			wantCode: http.StatusBadRequest, wantReply: `malformed push payload: the value of "after" at byte offset 35`},
		{name: "URL of the wrong type", header: githubHeaders("push", testSecret, badType), body: badType,
			wantCode: http.StatusBadRequest, wantReply: `malformed push payload: the value of "repository" at byte offset`},
		{name: "no ref", header: githubHeaders("push", testSecret, noRef), body: noRef,
			wantCode: http.StatusBadRequest, wantReply: "push payload has no ref"},
		{name: "no repository URL", header: githubHeaders("push", testSecret, noURL), body: noURL,
			wantCode: http.StatusBadRequest, wantReply: "names no repository URL"},
		{name: "Gitea push", header: giteaHeaders("push", testSecret, gitea), body: gitea, queued: 1,
			wantCode: http.StatusAccepted, wantPush: giteaPush},
		{name: "Gitea signature alone", body: gitea, queued: 1,
			header:   with(with(giteaHeaders("push", testSecret, gitea), "X-Hub-Signature-256", ""), "X-GitHub-Event", ""),
			wantCode: http.StatusAccepted, wantPush: giteaPush},
		{name: "Gitea signature wrong", body: gitea,
			header:   with(with(giteaHeaders("push", "guess", gitea), "X-Hub-Signature-256", ""), "X-GitHub-Event", ""),
			wantCode: http.StatusUnauthorized, wantReply: "X-Gitea-Signature does not match"},
		{name: "Gitea form-encoded, signing the JSON", body: formBody(gitea), queued: 1,
			header:   with(giteaHeaders("push", testSecret, gitea), "Content-Type", "application/x-www-form-urlencoded"),
			wantCode: http.StatusAccepted, wantPush: giteaPush},
		{name: "Forgejo push", body: gitea, queued: 1,
			header: http.Header{"Content-Type": {"application/json"}, "X-Forgejo-Event": {"push"},
				"X-Forgejo-Signature": {hmacHex(testSecret, gitea)}},
			wantCode: http.StatusAccepted, wantPush: giteaPush},
		{name: "Forgejo signature wrong, Gitea's right", body: gitea,
			header: http.Header{"Content-Type": {"application/json"}, "X-Forgejo-Event": {"push"},
				"X-Forgejo-Signature": {hmacHex("guess", gitea)}, "X-Gitea-Signature": {hmacHex(testSecret, gitea)}},
			wantCode: http.StatusUnauthorized, wantReply: "X-Forgejo-Signature does not match"},
		{name: "GitLab push", header: gitlabHeaders("Push Hook", testSecret), body: gitlab, queued: 3,
			wantCode: http.StatusAccepted, wantReply: "queued 3 repositories", wantPush: gitlabPush},
		{name: "GitLab wrong token", header: gitlabHeaders("Push Hook", "guess"), body: gitlab,
			wantCode: http.StatusUnauthorized, wantReply: "X-Gitlab-Token does not match the secret"},
		{name: "GitLab token a prefix of the secret", header: gitlabHeaders("Push Hook", testSecret[:5]), body: gitlab,
			wantCode: http.StatusUnauthorized},
		{name: "GitLab tag push hook", header: gitlabHeaders("Tag Push Hook", testSecret), body: gitlab,
			wantCode: http.StatusAccepted, wantReply: "ignored: not a push event"},
		{name: "GitLab branch deletion", header: gitlabHeaders("Push Hook", testSecret), body: gitlabDeleted,
			wantCode: http.StatusAccepted, wantReply: "ignored: branch main was deleted"},
		{name: "empty secret refuses a push signed with it", secret: "-", header: githubHeaders("push", "", gh), body: gh,
			wantCode: http.StatusForbidden, wantReply: "no secret is configured"},
		{name: "empty secret refuses an empty GitLab token", secret: "-", header: gitlabHeaders("Push Hook", ""), body: gitlab,
			wantCode: http.StatusForbidden},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			secret := testSecret
			if tt.secret == "-" {
				secret = ""
			}
			method := tt.method
			if method == "" {
				method = http.MethodPost
			}
			n := &notifier{queued: tt.queued}
			logs := &logBuffer{}
			w := deliver(t, Handler([]byte(secret), n.notify), method, tt.header, tt.body, logs)

			if w.Code != tt.wantCode {
				t.Errorf("status %d, want %d; reply %q", w.Code, tt.wantCode, w.Body.String())
			}
			if !strings.Contains(w.Body.String(), tt.wantReply) {
				t.Errorf("reply %q, want it to contain %q", w.Body.String(), tt.wantReply)
			}
			if ct := w.Header().Get("Content-Type"); ct != "text/plain; charset=utf-8" {
				t.Errorf("Content-Type %q", ct)
			}
			if tt.wantCode == http.StatusMethodNotAllowed && w.Header().Get("Allow") != http.MethodPost {
				t.Errorf("Allow %q, want POST", w.Header().Get("Allow"))
			}
			checkPushes(t, n.pushes, tt.wantPush)
			checkNoLeak(t, "reply", w.Body.String(), tt.header)
			checkNoLeak(t, "logs", logs.String(), tt.header)
			if !strings.Contains(logs.String(), `"status"=`) {
				t.Errorf("logs at V(1) hold no status: %q", logs.String())
			}
		})
	}
}

func checkPushes(t *testing.T, got []Push, want *Push) {
	t.Helper()
	switch {
	case want == nil && len(got) > 0:
		t.Errorf("notify called with %+v, want no call", got)
	case want != nil && len(got) != 1:
		t.Errorf("notify called %d times, want once", len(got))
	case want != nil && !reflect.DeepEqual(got[0], *want):
		t.Errorf("notify got\n%+v\nwant\n%+v", got[0], *want)
	}
}

// checkNoLeak fails when out quotes the secret or a signature or token
// header's value.
func checkNoLeak(t *testing.T, what, out string, h http.Header) {
	t.Helper()
	if strings.Contains(out, testSecret) {
		t.Errorf("%s hold the secret: %q", what, out)
	}
	for _, name := range []string{"X-Hub-Signature-256", "X-Gitea-Signature", "X-Forgejo-Signature", "X-Gitlab-Token", "X-Hub-Signature"} {
		v := strings.TrimPrefix(h.Get(name), "sha256=")
		if len(v) >= 4 && strings.Contains(out, v) {
			t.Errorf("%s hold the value of %s: %q", what, name, out)
		}
	}
}
