package githubtest

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Options configure a Server.
type Options struct {
	// Owner and Repo name the one repository the fake serves.
	Owner, Repo string
	// Token, when set, is required from every request as
	// "Authorization: Bearer <Token>" (or GitHub's older "token <Token>").
	Token string
	// GitDir is the bare git repository behind the fake repository, such
	// as gittest's Server.RepoDir.
	GitDir string
}

// Request is one request the fake received.
type Request struct {
	// Method and Path as sent, Path without the query.
	Method, Path string
	// Query holds the query parameters.
	Query url.Values
}

// Server is a fake GitHub REST API for one repository on 127.0.0.1. Its
// methods are safe for concurrent use.
type Server struct {
	// URL is the base URL, http://127.0.0.1:<port>; the API answers under
	// URL/ and URL/api/v3/.
	URL string

	opts Options
	srv  *httptest.Server

	mu       sync.Mutex
	pulls    []*PR                // pulls[n-1] is pull request n
	labels   map[string]repoLabel // by lower-case name
	statuses map[string][]*Status // by commit, oldest first
	commits  map[string]bool      // commits known to exist
	nextID   int64
	requests []Request
	injected []injected // answered in order, before anything else

	gitRuns gitRuns
	catFile *catFile
}

// repoLabel is a label of the repository.
type repoLabel struct {
	ID   int64
	Name string
}

// injected is a canned response to the next request, for failures a test
// cannot provoke otherwise, such as rate limits.
type injected struct {
	status int
	header http.Header
	body   errorBody
}

// NewServer starts a fake for one test and stops it when the test ends.
func NewServer(t testing.TB, opts Options) *Server {
	t.Helper()
	if opts.Owner == "" || opts.Repo == "" || opts.GitDir == "" {
		t.Fatalf("githubtest: Owner, Repo and GitDir are required, got %+v", opts)
	}
	if _, err := os.Stat(opts.GitDir); err != nil {
		t.Fatalf("githubtest: GitDir: %v", err)
	}
	s := &Server{
		opts:     opts,
		labels:   map[string]repoLabel{},
		statuses: map[string][]*Status{},
		commits:  map[string]bool{},
		nextID:   1000,
	}
	s.srv = httptest.NewServer(s)
	s.URL = s.srv.URL
	s.catFile = &catFile{dir: opts.GitDir}
	t.Cleanup(s.srv.Close)
	t.Cleanup(s.catFile.stop)
	return s
}

// ServeHTTP answers one API request.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query()})
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-GitHub-Media-Type", "github.v3; format=json")
	if len(s.injected) > 0 {
		inj := s.injected[0]
		s.injected = s.injected[1:]
		for k, v := range inj.header {
			h[k] = v
		}
		writeJSON(w, inj.status, inj.body)
		return
	}
	// Rate headers as GitHub sends them, never exhausted here.
	h.Set("X-RateLimit-Limit", "5000")
	h.Set("X-RateLimit-Remaining", "4999")
	h.Set("X-RateLimit-Used", "1")
	h.Set("X-RateLimit-Resource", "core")
	h.Set("X-RateLimit-Reset", strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10))
	if !s.authorized(w, r) {
		return
	}
	s.route(w, r)
}

func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.opts.Token == "" {
		return true
	}
	auth := r.Header.Get("Authorization")
	if auth == "" {
		writeError(w, http.StatusUnauthorized, "Requires authentication", docREST)
		return false
	}
	scheme, token, _ := strings.Cut(auth, " ")
	if (!strings.EqualFold(scheme, "bearer") && !strings.EqualFold(scheme, "token")) || token != s.opts.Token {
		writeError(w, http.StatusUnauthorized, "Bad credentials", docREST)
		return false
	}
	return true
}

// route dispatches on the path below /repos/{owner}/{repo}; GitHub answers
// 404 to routes and methods it does not know, and so does the fake.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	p := r.URL.Path
	if rest, ok := strings.CutPrefix(p, "/api/v3/"); ok {
		p = "/" + rest
	}
	seg := strings.Split(strings.Trim(p, "/"), "/")
	if len(seg) < 4 || seg[0] != "repos" || !strings.EqualFold(seg[1], s.opts.Owner) || !strings.EqualFold(seg[2], s.opts.Repo) {
		notFound(w)
		return
	}
	seg = seg[3:]
	ctx := r.Context()
	switch m := r.Method; {
	case len(seg) == 1 && seg[0] == "pulls" && m == http.MethodGet:
		s.listPulls(ctx, w, r)
	case len(seg) == 1 && seg[0] == "pulls" && m == http.MethodPost:
		s.createPull(ctx, w, r)
	case len(seg) == 2 && seg[0] == "pulls" && m == http.MethodPatch:
		s.withPull(w, seg[1], func(p *PR) { s.updatePull(ctx, w, r, p) })
	case len(seg) == 3 && seg[0] == "issues" && seg[2] == "labels" && (m == http.MethodPost || m == http.MethodPut):
		s.withPull(w, seg[1], func(p *PR) { s.setLabels(w, r, p, m == http.MethodPut) })
	case len(seg) == 3 && seg[0] == "issues" && seg[2] == "comments" && m == http.MethodGet:
		s.withPull(w, seg[1], func(p *PR) { s.listComments(w, p) })
	case len(seg) == 3 && seg[0] == "issues" && seg[2] == "comments" && m == http.MethodPost:
		s.withPull(w, seg[1], func(p *PR) { s.createComment(w, r, p) })
	case len(seg) == 2 && seg[0] == "statuses" && m == http.MethodPost:
		s.createStatus(ctx, w, r, seg[1])
	case len(seg) >= 3 && seg[0] == "commits" && seg[len(seg)-1] == "status" && m == http.MethodGet:
		s.combinedStatus(ctx, w, r, strings.Join(seg[1:len(seg)-1], "/"))
	default:
		notFound(w)
	}
}

// withPull calls f with pull request (or issue) number, or answers 404.
func (s *Server) withPull(w http.ResponseWriter, number string, f func(*PR)) {
	n, err := strconv.Atoi(number)
	if err != nil || n < 1 || n > len(s.pulls) {
		notFound(w)
		return
	}
	f(s.pulls[n-1])
}

// newID returns a fresh id for a comment, status or label.
func (s *Server) newID() int64 {
	s.nextID++
	return s.nextID
}

// apiURL is the API URL of path, as GitHub puts in url fields.
func (s *Server) apiURL(path string) string {
	return s.URL + "/repos/" + s.opts.Owner + "/" + s.opts.Repo + path
}

// webURL is the URL a person opens, as GitHub puts in html_url fields.
func (s *Server) webURL(path string) string {
	return s.URL + "/" + s.opts.Owner + "/" + s.opts.Repo + path
}
