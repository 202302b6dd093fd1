package github

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestNewRejectsBadOptions(t *testing.T) {
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{"no owner", Options{Repo: "r", Token: "t"}, "Owner and Repo are required"},
		{"no repo", Options{Owner: "o", Token: "t"}, "Owner and Repo are required"},
		{"no token", Options{Owner: "o", Repo: "r"}, "Token is required"},
		{"base URL without scheme", Options{Owner: "o", Repo: "r", Token: "t", BaseURL: "ghe.example.com"}, "not an http(s) URL"},
		{"base URL unparsable", Options{Owner: "o", Repo: "r", Token: "t", BaseURL: "http://[::1"}, "not an http(s) URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(t.Context(), tt.opts)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("New = %v, want an error containing %q", err, tt.want)
			}
		})
	}
	if _, err := New(t.Context(), Options{Owner: "o", Repo: "r", HTTPClient: http.DefaultClient}); err != nil {
		t.Errorf("New with an authenticating client and no token: %v", err)
	}
}

// TestBaseURLs reaches the fake through the base URLs a GitHub Enterprise
// user may write.
func TestBaseURLs(t *testing.T) {
	fx := newFixture(t)
	for _, base := range []string{fx.gh.URL + "/api/v3/", fx.gh.URL + "/api/v3", fx.gh.URL, fx.gh.URL + "/"} {
		t.Run(base, func(t *testing.T) {
			before := len(fx.gh.Requests())
			f := fx.newForge(t, Options{Token: testToken, BaseURL: base, HTTPClient: &http.Client{}})
			if _, err := f.Proposals(t.Context(), "plan"); err != nil {
				t.Fatalf("Proposals: %v", err)
			}
			reqs := fx.gh.Requests()[before:]
			if len(reqs) != 1 || !strings.HasPrefix(reqs[0].Path, "/api/v3/repos/") {
				t.Errorf("requests %+v, want one under /api/v3/", reqs)
			}
		})
	}
}

// TestBearerOnlyToAPIHost follows the token: sent to the API host, not to
// another one (a redirect, a link in a response).
func TestBearerOnlyToAPIHost(t *testing.T) {
	seen := map[string]string{}
	record := func(name string) *httptest.Server {
		s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen[name] = r.Header.Get("Authorization")
		}))
		t.Cleanup(s.Close)
		return s
	}
	api, other := record("api"), record("other")
	client := &http.Client{Transport: &bearer{token: "tok", host: strings.TrimPrefix(api.URL, "http://"), next: http.DefaultTransport}}
	for _, u := range []string{api.URL, other.URL} {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, u, nil)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	if seen["api"] != "Bearer tok" || seen["other"] != "" {
		t.Errorf("Authorization seen: %q", seen)
	}
}
