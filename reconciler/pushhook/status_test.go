package pushhook

import (
	"context"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"testing"
)

// statusPayload is the part of GitHub's status event olmops reads, amid
// fields it skips.
const statusPayload = `{"id":6805126730,"sha":"6dcb09b5b57875f334f61aebed695e2e4193db5e","name":"acme/gitops",
"target_url":null,"context":"olmops/staging/etcd-system/etcd","description":"etcdoperator.v0.9.4 installed · healthy",
"state":"success","commit":{"sha":"6dcb09b5b57875f334f61aebed695e2e4193db5e","commit":{"message":"plan"}},
"branches":[{"name":"main"}],"repository":{"full_name":"acme/gitops","clone_url":"https://github.com/acme/gitops.git",
"ssh_url":"git@github.com:acme/gitops.git","html_url":"https://github.com/acme/gitops"}}`

// statusRecorder records the statuses a Handler hands over.
type statusRecorder struct {
	mu       sync.Mutex
	statuses []Status
	queued   int
}

func (s *statusRecorder) notify(_ context.Context, st Status) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.statuses = append(s.statuses, st)
	return s.queued
}

func TestStatusEvent(t *testing.T) {
	body := []byte(statusPayload)
	want := &Status{
		URLs:    []string{"https://github.com/acme/gitops.git", "git@github.com:acme/gitops.git", "https://github.com/acme/gitops"},
		Commit:  "6dcb09b5b57875f334f61aebed695e2e4193db5e",
		Context: "olmops/staging/etcd-system/etcd",
		State:   "success",
	}
	noContext := edit(t, body, `"context":"olmops/staging/etcd-system/etcd",`, "")
	noURL := []byte(`{"sha":"6dcb09b5b57875f334f61aebed695e2e4193db5e","context":"olmops/staging/etcd-system/etcd","state":"success","repository":{}}`)
	form := formBody(body)
	for _, tt := range []struct {
		name      string
		secret    string // testSecret when empty; "-" for none
		noStatus  bool   // the Handler has no status receiver
		header    http.Header
		body      []byte
		queued    int
		wantCode  int
		wantReply string
		want      *Status // nil: the receiver must not be called
	}{
		{name: "signed", header: githubHeaders("status", testSecret, body), body: body, queued: 2,
			wantCode: http.StatusAccepted, wantReply: "queued 2 followers", want: want},
		{name: "signed, nothing follows", header: githubHeaders("status", testSecret, body), body: body,
			wantCode: http.StatusOK, wantReply: "nothing waits on that status", want: want},
		{name: "form-encoded", header: with(githubHeaders("status", testSecret, form), "Content-Type", "application/x-www-form-urlencoded"),
			body: form, queued: 1, wantCode: http.StatusAccepted, wantReply: "queued 1 follower", want: want},
		{name: "forged: signed with another secret", header: githubHeaders("status", "guess", body), body: body,
			wantCode: http.StatusUnauthorized, wantReply: "X-Hub-Signature-256 does not match"},
		{name: "forged: signed, then changed", header: githubHeaders("status", testSecret, body),
			body: edit(t, body, `"state":"success"`, `"state":"failure"`), wantCode: http.StatusUnauthorized},
		{name: "unsigned", header: with(githubHeaders("status", testSecret, body), "X-Hub-Signature-256", ""), body: body,
			wantCode: http.StatusUnauthorized, wantReply: "unsigned request"},
		{name: "no secret configured", secret: "-", header: githubHeaders("status", "", body), body: body,
			wantCode: http.StatusForbidden, wantReply: "no secret is configured"},
		{name: "no status receiver", noStatus: true, header: githubHeaders("status", testSecret, body), body: body,
			wantCode: http.StatusAccepted, wantReply: "ignored: not a push event"},
		{name: "no context", header: githubHeaders("status", testSecret, noContext), body: noContext,
			wantCode: http.StatusBadRequest, wantReply: "status payload has no context"},
		{name: "no repository URL", header: githubHeaders("status", testSecret, noURL), body: noURL,
			wantCode: http.StatusBadRequest, wantReply: "status payload names no repository URL"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			secret := testSecret
			if tt.secret == "-" {
				secret = ""
			}
			pushes, statuses := &notifier{}, &statusRecorder{queued: tt.queued}
			rc := Receivers{Push: pushes.notify, Status: statuses.notify}
			if tt.noStatus {
				rc.Status = nil
			}
			w := deliver(t, NewHandler([]byte(secret), rc), http.MethodPost, tt.header, tt.body, &logBuffer{})
			if w.Code != tt.wantCode || !strings.Contains(w.Body.String(), tt.wantReply) {
				t.Errorf("%d %q, want %d %q", w.Code, w.Body.String(), tt.wantCode, tt.wantReply)
			}
			if len(pushes.pushes) > 0 {
				t.Errorf("a status event was handed over as a push: %+v", pushes.pushes)
			}
			switch {
			case tt.want == nil && len(statuses.statuses) > 0:
				t.Errorf("status receiver called with %+v, want no call", statuses.statuses)
			case tt.want != nil && (len(statuses.statuses) != 1 || !reflect.DeepEqual(statuses.statuses[0], *tt.want)):
				t.Errorf("status receiver got %+v, want %+v once", statuses.statuses, *tt.want)
			}
			checkNoLeak(t, "reply", w.Body.String(), tt.header)
		})
	}
}
