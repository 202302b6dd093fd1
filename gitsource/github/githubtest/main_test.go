package githubtest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/olmops/olmops/gitsource/github/githubtest"
	"github.com/olmops/olmops/internal/gittest"
)

const token = "test-token"

// fixture is a bare repository with main at its first commit, and a fake
// GitHub over it.
type fixture struct {
	srv  *githubtest.Server
	dir  string
	main string
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	gittest.RequireGit(t)
	dir := t.TempDir()
	gittest.Git(t, dir, "init", "--quiet", "--bare", "--initial-branch=main")
	fx := &fixture{dir: dir}
	fx.main = gittest.Commit(t, dir, "main", gittest.Change{Files: map[string][]byte{"README.md": []byte("one\ntwo\nthree\n")}})
	fx.srv = githubtest.NewServer(t, githubtest.Options{Owner: "acme", Repo: "olm", Token: token, GitDir: dir})
	return fx
}

// branch commits files on branch, which starts from main when new.
func (fx *fixture) branch(t *testing.T, branch string, files map[string]string) string {
	t.Helper()
	if strings.TrimSpace(gittest.Git(t, fx.dir, "branch", "--list", branch)) == "" {
		gittest.Git(t, fx.dir, "branch", branch, "main")
	}
	c := gittest.Change{Files: map[string][]byte{}, Message: "change on " + branch}
	for name, content := range files {
		c.Files[name] = []byte(content)
	}
	return gittest.Commit(t, fx.dir, branch, c)
}

func (fx *fixture) rev(t *testing.T, rev string) string {
	t.Helper()
	return strings.TrimSpace(gittest.Git(t, fx.dir, "rev-parse", "--verify", rev))
}

// response is an answer of the fake, its body decoded.
type response struct {
	status int
	header http.Header
	body   any
}

// field digs into an object body along keys.
func (r response) field(keys ...string) any {
	v := r.body
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// do sends method path (below /repos/acme/olm unless it starts with
// /api or http) with body as JSON and the fixture's token.
func (fx *fixture) do(t *testing.T, method, path string, body any) response {
	t.Helper()
	return fx.doAs(t, "Bearer "+token, method, path, body)
}

func (fx *fixture) doAs(t *testing.T, auth, method, path string, body any) response {
	t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	return fx.send(t, auth, method, path, raw)
}

// doRaw sends raw as the body, for bodies json.Marshal would not write.
func (fx *fixture) doRaw(t *testing.T, method, path, raw string) response {
	t.Helper()
	return fx.send(t, "Bearer "+token, method, path, []byte(raw))
}

func (fx *fixture) send(t *testing.T, auth, method, path string, body []byte) response {
	t.Helper()
	url := path
	switch {
	case strings.HasPrefix(path, "http"):
	case strings.HasPrefix(path, "/api/"):
		url = fx.srv.URL + path
	default:
		url = fx.srv.URL + "/repos/acme/olm" + path
	}
	req, err := http.NewRequestWithContext(t.Context(), method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := response{status: resp.StatusCode, header: resp.Header}
	if err := json.NewDecoder(resp.Body).Decode(&out.body); err != nil {
		t.Fatalf("%s %s: body is not JSON: %v", method, path, err)
	}
	return out
}

// openPR opens a pull request of head into main and returns its number.
func (fx *fixture) openPR(t *testing.T, head string) int {
	t.Helper()
	r := fx.do(t, http.MethodPost, "/pulls", map[string]any{"title": "plan " + head, "head": head, "base": "main"})
	if r.status != http.StatusCreated {
		t.Fatalf("create pull request: %d %v", r.status, r.body)
	}
	return int(r.field("number").(float64))
}
