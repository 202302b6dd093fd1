package pushhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/go-logr/logr"
)

// Path is where olmops serve mounts the Handler.
const Path = "/hooks/push"

// MaxBodyBytes is the largest body the Handler reads: GitHub's cap on a
// webhook payload, 25 MB.
const MaxBodyBytes = 25 << 20

// Handler returns the push webhook receiver. secret is the secret configured
// on the forge's webhook; an empty secret makes every request fail with
// 403, because a receiver without one would act on anyone's pushes (olmops
// serve does not mount the route at all without a secret). notify is called
// with each verified branch push and returns how many Repository objects it
// queued for a fetch; it must not be nil.
func Handler(secret []byte, notify func(ctx context.Context, p Push) int) http.Handler {
	if notify == nil {
		panic("pushhook.Handler: notify is nil")
	}
	return &handler{secret: bytes.Clone(secret), notify: notify}
}

type handler struct {
	secret []byte
	notify func(ctx context.Context, p Push) int
}

// refusal is a reply that ends a request early: its status and a short
// text that never holds the secret, a signature or any header's value.
type refusal struct {
	code int
	msg  string
}

func (r *refusal) Error() string { return r.msg }

func refuse(code int, msg string) error { return &refusal{code: code, msg: msg} }

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	code, msg := h.serve(w, r)
	logr.FromContextOrDiscard(r.Context()).V(1).Info("push webhook", "status", code, "reply", msg)
	if code == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", http.MethodPost)
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

// serve runs the steps of a delivery in order; the first to refuse ends it.
func (h *handler) serve(w http.ResponseWriter, r *http.Request) (int, string) {
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, "only POST is accepted"
	}
	if len(h.secret) == 0 {
		return http.StatusForbidden, "push webhook disabled: no secret is configured"
	}
	v, err := pickVerifier(r.Header)
	if err != nil {
		return reply(err)
	}
	body, err := readBody(w, r)
	if err != nil {
		return reply(err)
	}
	contentType := r.Header.Get("Content-Type")
	if err := v.check(h.secret, signedContents(contentType, body), v.header, r.Header.Get(v.header)); err != nil {
		return reply(err)
	}
	switch eventOf(r.Header) {
	case eventNone:
		return http.StatusBadRequest, "no event header: want one of " + strings.Join(eventHeaders, ", ")
	case eventPing:
		return http.StatusOK, "pong"
	case eventOther:
		return http.StatusAccepted, "ignored: not a push event"
	}
	return h.push(r.Context(), contentType, body)
}

// push decodes a verified push event and hands it to notify.
func (h *handler) push(ctx context.Context, contentType string, body []byte) (int, string) {
	data, err := payloadJSON(contentType, body)
	if err != nil {
		return reply(err)
	}
	p, ignored, err := decodePush(data)
	if err != nil {
		return reply(err)
	}
	if ignored != "" {
		return http.StatusAccepted, "ignored: " + ignored
	}
	logr.FromContextOrDiscard(ctx).V(1).Info("push webhook: branch pushed", "urls", p.URLs, "branch", p.Branch, "after", p.After)
	switch n := h.notify(ctx, p); n {
	case 0:
		return http.StatusOK, "no repository matches"
	case 1:
		return http.StatusAccepted, "queued 1 repository"
	default:
		return http.StatusAccepted, fmt.Sprintf("queued %d repositories", n)
	}
}

// readBody reads at most MaxBodyBytes of the body.
func readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	tooLarge := refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", MaxBodyBytes))
	if r.ContentLength > MaxBodyBytes {
		return nil, tooLarge
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return nil, tooLarge
	case err != nil:
		return nil, refuse(http.StatusBadRequest, "reading the body: "+err.Error())
	}
	return body, nil
}

// reply turns a step's error into a status and text; every step returns
// refusals, so anything else is a bug reported without its details.
func reply(err error) (int, string) {
	var rf *refusal
	if errors.As(err, &rf) {
		return rf.code, rf.msg
	}
	return http.StatusInternalServerError, "internal error"
}
