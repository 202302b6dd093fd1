package gittest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// ServerOptions configure a Server.
type ServerOptions struct {
	// Username and Password, when Username is set, are required from every
	// request as HTTP basic auth; a request without them or with others is
	// answered 401.
	Username, Password string
	// RequestLog, when set, receives a line per request that reached
	// git-http-backend, "gittest-cgi METHOD PATH?QUERY user=0.012
	// sys=0.004", with the CPU seconds of the backend and the git
	// processes it ran: what a benchmark needs to tell which fetches and
	// pushes cost the server what. git's own messages to standard error
	// land there too. It needs bash; without it nothing is logged.
	RequestLog io.Writer
}

// Server serves the bare repositories under Root at URL/<name>.git, for
// fetch and push.
type Server struct {
	// URL is the base URL, http://127.0.0.1:<port>.
	URL string
	// Root holds the bare repositories, one <name>.git folder each.
	Root string

	opts    ServerOptions
	srv     *httptest.Server
	ownRoot bool
}

// Start starts a server over a new temporary folder. Close stops it and
// removes the folder. It is meant for TestMain; tests use NewServer.
func Start(opts ServerOptions) (*Server, error) {
	backend, err := httpBackend()
	if err != nil {
		return nil, err
	}
	root, err := os.MkdirTemp("", "gittest-")
	if err != nil {
		return nil, err
	}
	s := &Server{Root: root, opts: opts, ownRoot: true}
	cgiHandler := &cgi.Handler{
		Path: backend,
		Root: "/",
		Dir:  root,
		Env: []string{
			"GIT_PROJECT_ROOT=" + root,
			"GIT_HTTP_EXPORT_ALL=1",
			"GIT_CONFIG_NOSYSTEM=1",
			"GIT_CONFIG_GLOBAL=" + os.DevNull,
			"HOME=" + root,
			// Push over HTTP is off unless the request is authenticated or
			// the repository allows it; allow it for every repository.
			"GIT_CONFIG_COUNT=1",
			"GIT_CONFIG_KEY_0=http.receivepack",
			"GIT_CONFIG_VALUE_0=true",
		},
		// git's trace2 targets, when a person sets them to see what
		// the server's git did (object counts, child processes).
		InheritEnv: []string{"GIT_TRACE2_EVENT", "GIT_TRACE2_PERF"},
	}
	if opts.RequestLog != nil {
		cgiHandler.Path, cgiHandler.Args = requestLogger(backend)
		cgiHandler.Stderr = &lockedWriter{w: opts.RequestLog}
	}
	s.srv = httptest.NewServer(s.handler(cgiHandler))
	s.URL = s.srv.URL
	return s, nil
}

// NewServer starts a server for one test and stops it when the test ends.
// The test is skipped when git is not installed.
func NewServer(t testing.TB, opts ServerOptions) *Server {
	t.Helper()
	RequireGit(t)
	s, err := Start(opts)
	if err != nil {
		t.Fatalf("gittest: start server: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Close stops the server and removes the repositories it created.
func (s *Server) Close() {
	s.srv.Close()
	if s.ownRoot {
		os.RemoveAll(s.Root)
	}
}

// RepoURL is the URL of the repository name.
func (s *Server) RepoURL(name string) string { return s.URL + "/" + name + ".git" }

// RepoDir is the folder of the bare repository name.
func (s *Server) RepoDir(name string) string { return filepath.Join(s.Root, name+".git") }

// CreateRepo creates an empty bare repository name whose default branch is
// main, and returns its URL.
func (s *Server) CreateRepo(t testing.TB, name string) string {
	t.Helper()
	Git(t, s.Root, "init", "--quiet", "--bare", "--initial-branch=main", name+".git")
	return s.RepoURL(name)
}

func (s *Server) handler(backend http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if s.opts.Username != "" {
			user, pass, ok := req.BasicAuth()
			if !ok || user != s.opts.Username || pass != s.opts.Password {
				w.Header().Set("WWW-Authenticate", `Basic realm="gittest"`)
				http.Error(w, "authentication required", http.StatusUnauthorized)
				return
			}
		}
		// net/http/cgi answers 400 to a chunked request body (a large push
		// is sent chunked): hand it a body of known length instead.
		if req.Body != nil && req.ContentLength < 0 {
			body, err := io.ReadAll(req.Body)
			if err != nil {
				http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
				return
			}
			req.Body = io.NopCloser(bytes.NewReader(body))
			req.ContentLength = int64(len(body))
			req.TransferEncoding = nil
			req.Header.Del("Transfer-Encoding")
		}
		backend.ServeHTTP(w, req)
	})
}

// RequireGit skips the test when the git binary is not installed.
func RequireGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("gittest: git is not installed; these tests need the git CLI and git-http-backend")
	}
}

func httpBackend() (string, error) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("gittest: git is not installed: %w", err)
	}
	out, err := exec.Command(gitBin, "--exec-path").Output()
	if err != nil {
		return "", fmt.Errorf("gittest: git --exec-path: %w", err)
	}
	backend := filepath.Join(strings.TrimSpace(string(out)), "git-http-backend")
	if _, err := os.Stat(backend); err != nil {
		return "", errors.Join(errors.New("gittest: git-http-backend not found"), err)
	}
	return backend, nil
}
