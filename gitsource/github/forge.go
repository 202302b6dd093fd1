package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/go-logr/logr"
	gh "github.com/google/go-github/v62/github"

	"github.com/olmops/olmops/gitsource"
)

// Options say which repository a Forge works on and how to reach it.
type Options struct {
	// Owner and Repo name the repository, as in github.com/Owner/Repo.
	Owner, Repo string
	// Token authenticates every request (a personal access token, or a
	// GitHub App installation token). It needs write access to pull
	// requests, issues and commit statuses. It may be empty only when
	// HTTPClient authenticates by itself.
	Token string
	// BaseURL is the API of a GitHub Enterprise Server, such as
	// https://ghe.example.com/api/v3/ (the /api/v3/ is added when
	// missing); empty means api.github.com.
	BaseURL string
	// HTTPClient sends the requests; nil means a client with a one-minute
	// timeout per request.
	HTTPClient *http.Client
}

// String describes o without its token, so that logging options is safe.
func (o Options) String() string {
	token := ""
	if o.Token != "" {
		token = "<redacted>"
	}
	return fmt.Sprintf("{Owner:%s Repo:%s Token:%s BaseURL:%s}", o.Owner, o.Repo, token, o.BaseURL)
}

// GoString is String, for %#v.
func (o Options) GoString() string { return "github.Options" + o.String() }

// Forge is a gitsource.Forge on one GitHub repository. It is safe for
// concurrent use.
type Forge struct {
	client      *gh.Client
	owner, repo string
	// perPage is the page size asked of list endpoints; tests lower it to
	// exercise pagination.
	perPage int
}

var _ gitsource.Forge = (*Forge)(nil)

// defaultTimeout bounds each request of the default HTTP client, so that a
// GitHub that stops answering cannot hang a reconcile whose ctx has no
// deadline.
const defaultTimeout = time.Minute

// New returns a Forge on opts.Owner/opts.Repo. It sends no request: bad
// credentials show up on first use.
func New(ctx context.Context, opts Options) (*Forge, error) {
	if opts.Owner == "" || opts.Repo == "" {
		return nil, errors.New("github: Owner and Repo are required")
	}
	if opts.Token == "" && opts.HTTPClient == nil {
		return nil, errors.New("github: Token is required (or an HTTPClient that authenticates)")
	}
	hc := &http.Client{Timeout: defaultTimeout}
	if opts.HTTPClient != nil {
		copied := *opts.HTTPClient
		hc = &copied
	}
	var auth *bearer
	if opts.Token != "" {
		auth = &bearer{token: opts.Token, next: hc.Transport}
		if auth.next == nil {
			auth.next = http.DefaultTransport
		}
		hc.Transport = auth
	}
	client := gh.NewClient(hc)
	if opts.BaseURL != "" {
		u, err := url.Parse(opts.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("github: BaseURL %q is not an http(s) URL", opts.BaseURL)
		}
		if client, err = client.WithEnterpriseURLs(opts.BaseURL, opts.BaseURL); err != nil {
			return nil, fmt.Errorf("github: BaseURL %q: %w", opts.BaseURL, err)
		}
	}
	if auth != nil {
		auth.host = client.BaseURL.Host
	}
	client.UserAgent = "olmops"
	logr.FromContextOrDiscard(ctx).V(1).Info("GitHub forge", "owner", opts.Owner, "repo", opts.Repo, "api", client.BaseURL.String())
	return &Forge{client: client, owner: opts.Owner, repo: opts.Repo, perPage: 100}, nil
}

// bearer adds the token to requests for the API host, and only there: a
// redirect elsewhere must not carry it.
type bearer struct {
	token, host string
	next        http.RoundTripper
}

// RoundTrip implements http.RoundTripper.
func (b *bearer) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Host != b.host {
		return b.next.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	req.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(req)
}

// path is the API path of the repository's endpoint rest, for errors.
func (f *Forge) path(format string, args ...any) string {
	return "/repos/" + f.owner + "/" + f.repo + fmt.Sprintf(format, args...)
}
