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

// MaxInFlight is how many deliveries the Handler reads at once; one more
// is refused with 429 and Retry-After rather than queued, so that a flood
// costs at most MaxInFlight × MaxTokenBytes of memory.
const MaxInFlight = 4

// Handler returns the push webhook receiver. secret is the secret configured
// on the forge's webhook; an empty secret makes every request fail with
// 403, because a receiver without one would act on anyone's pushes (olmops
// serve does not mount the route at all without a secret). notify is called
// with each verified branch push and returns how many Repository objects it
// queued for a fetch; it must not be nil.
func Handler(secret []byte, notify func(ctx context.Context, p Push) int) http.Handler {
	return NewHandler(secret, Receivers{Push: notify})
}

// Receivers are what a Handler hands verified events to.
type Receivers struct {
	// Push is called with each verified branch push and returns how many
	// objects it queued; it must not be nil.
	Push func(ctx context.Context, p Push) int
	// Status, when set, is called with each verified commit status event
	// and returns how many objects it queued; nil ignores status events,
	// as any other event.
	Status func(ctx context.Context, s Status) int
}

// NewHandler is Handler with a receiver for each event it takes.
func NewHandler(secret []byte, rc Receivers) http.Handler {
	if rc.Push == nil {
		panic("pushhook.Handler: notify is nil")
	}
	return &handler{secret: bytes.Clone(secret), notify: rc.Push, status: rc.Status, slots: make(chan struct{}, MaxInFlight)}
}

type handler struct {
	secret []byte
	notify func(ctx context.Context, p Push) int
	status func(ctx context.Context, s Status) int
	slots  chan struct{} // one per delivery being read
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
	switch code {
	case http.StatusMethodNotAllowed:
		w.Header().Set("Allow", http.MethodPost)
	case http.StatusTooManyRequests:
		w.Header().Set("Retry-After", "1")
	}
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	fmt.Fprintln(w, msg)
}

// serve runs the steps of a delivery in order; the first to refuse ends it.
// Everything that can be refused without the body is refused before a byte
// of it is read.
func (h *handler) serve(w http.ResponseWriter, r *http.Request) (int, string) {
	if r.Method != http.MethodPost {
		return http.StatusMethodNotAllowed, "only POST is accepted"
	}
	if len(h.secret) == 0 {
		return http.StatusForbidden, "push webhook disabled: no secret is configured"
	}
	select {
	case h.slots <- struct{}{}:
		defer func() { <-h.slots }()
	default:
		return http.StatusTooManyRequests, fmt.Sprintf("busy: %d deliveries are being read", MaxInFlight)
	}
	v, err := pickVerifier(r.Header)
	if err != nil {
		return reply(err)
	}
	want, err := v.parse(h.secret, v.header, r.Header.Get(v.header))
	if err != nil {
		return reply(err)
	}
	if r.ContentLength > MaxBodyBytes {
		return reply(errTooLarge)
	}
	contentType := r.Header.Get("Content-Type")
	event := eventOf(r.Header)
	if event == eventStatus && h.status == nil {
		event = eventOther
	}
	m := newMACs(h.secret)
	pl, payloadSeen, perr := h.stream(w, r, m, event, contentType)
	var rf *refusal
	if errors.As(perr, &rf) && rf.code == http.StatusRequestEntityTooLarge && perr == errTooLarge {
		return reply(perr)
	}
	if want != nil {
		if err := m.check(v.header, want, payloadSeen); err != nil {
			return reply(err)
		}
	}
	switch event {
	case eventNone:
		return http.StatusBadRequest, "no event header: want one of " + strings.Join(eventHeaders, ", ")
	case eventPing:
		return http.StatusOK, "pong"
	case eventOther:
		return http.StatusAccepted, "ignored: not a push event"
	}
	if perr != nil {
		return reply(perr)
	}
	if event == eventStatus {
		return h.commitStatus(r.Context(), pl)
	}
	return h.push(r.Context(), pl)
}

// push hands a verified push event to notify.
func (h *handler) push(ctx context.Context, pl pushPayload) (int, string) {
	p, ignored, err := pushOf(pl)
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

var errTooLarge = refuse(http.StatusRequestEntityTooLarge, fmt.Sprintf("body larger than %d bytes", MaxBodyBytes))

// stream reads the whole body (at most MaxBodyBytes) through the MACs,
// scanning a push payload as it passes and holding no more of it than
// MaxTokenBytes. Its error is errTooLarge for an oversized body, which
// needs no signature to refuse; any other is reported only once the
// signature verifies. The body is always read to its end, because the
// signature covers all of it.
func (h *handler) stream(w http.ResponseWriter, r *http.Request, m *macs, event eventKind, contentType string) (pl pushPayload, payloadSeen bool, err error) {
	body := io.TeeReader(http.MaxBytesReader(w, r.Body, MaxBodyBytes), m.raw)
	if event == eventPush || event == eventStatus {
		switch mediaType(contentType) {
		case jsonType:
			pl, err = scanPush(body)
		case formType:
			pl, payloadSeen, err = scanForm(body, m.payload)
		default:
			err = refuse(http.StatusUnsupportedMediaType, "Content-Type must be "+jsonType+" or "+formType)
		}
	}
	_, derr := io.Copy(io.Discard, body)
	var maxErr *http.MaxBytesError
	if errors.As(err, &maxErr) || errors.As(derr, &maxErr) {
		return pl, payloadSeen, errTooLarge
	}
	if derr != nil {
		return pl, payloadSeen, refuse(http.StatusBadRequest, "reading the body: "+derr.Error())
	}
	return pl, payloadSeen, err
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
