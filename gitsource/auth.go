package gitsource

import (
	"fmt"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"

	redaction "github.com/olmops/olmops/internal/redact"
)

// DefaultTokenUser is the user name sent with Auth.Token when Username is
// empty; GitHub, GitLab and Gitea accept any non-empty name with a token.
const DefaultTokenUser = "x-access-token"

// Auth holds the credentials for a remote. The fields used depend on the
// URL's scheme: HTTP(S) uses Token or Username and Password; SSH uses
// SSHKey; file:// and local paths use none. The zero Auth sends no
// credentials (or those embedded in an HTTP URL).
type Auth struct {
	// Username and Password are sent as HTTP basic auth.
	Username, Password string
	// Token is an access token, sent over HTTPS as the basic-auth password
	// of Username (DefaultTokenUser when empty), which is how git hosts
	// take tokens.
	Token string

	// SSHKey is a PEM-encoded private key, protected by SSHKeyPassphrase
	// when that is set.
	SSHKey           []byte
	SSHKeyPassphrase string
	// SSHUser is the SSH login; "git" when empty.
	SSHUser string
	// SSHKnownHosts is a known_hosts file that checks the server's host
	// key; when empty, $SSH_KNOWN_HOSTS or ~/.ssh/known_hosts is used.
	SSHKnownHosts string
}

// String hides the secrets, so an Auth can be logged.
func (a Auth) String() string {
	switch {
	case a.Token != "":
		return "token"
	case a.Username != "":
		return "basic(" + a.Username + ")"
	case len(a.SSHKey) > 0:
		return "ssh-key"
	default:
		return "none"
	}
}

// GoString hides the secrets from %#v.
func (a Auth) GoString() string { return "gitsource.Auth{" + a.String() + "}" }

// method turns a into the go-git auth method for url.
func (a Auth) method(url string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return nil, fmt.Errorf("parse remote URL: %w", err)
	}
	switch ep.Protocol {
	case "http", "https":
		switch {
		case a.Token != "":
			user := a.Username
			if user == "" {
				user = DefaultTokenUser
			}
			return &githttp.BasicAuth{Username: user, Password: a.Token}, nil
		case a.Username != "":
			return &githttp.BasicAuth{Username: a.Username, Password: a.Password}, nil
		case ep.User != "" || ep.Password != "":
			// Credentials in the URL are used from memory: the cache clone's
			// config holds the URL without them (see withoutCredentials).
			return &githttp.BasicAuth{Username: ep.User, Password: ep.Password}, nil
		}
		return nil, nil
	case "ssh":
		if len(a.SSHKey) == 0 {
			return nil, nil // go-git falls back to the SSH agent
		}
		user := a.SSHUser
		if user == "" {
			user = ep.User
		}
		if user == "" {
			user = "git"
		}
		keys, err := gitssh.NewPublicKeys(user, a.SSHKey, a.SSHKeyPassphrase)
		if err != nil {
			return nil, fmt.Errorf("read SSH key: %w", err)
		}
		var files []string
		if a.SSHKnownHosts != "" {
			files = append(files, a.SSHKnownHosts)
		}
		cb, err := gitssh.NewKnownHostsCallback(files...)
		if err != nil {
			return nil, fmt.Errorf("read known_hosts: %w", err)
		}
		keys.HostKeyCallback = cb
		return keys, nil
	}
	return nil, nil
}

// redact removes the password from url, for messages and logs.
func redact(url string) string {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		// A URL that does not parse may still hold a password: drop
		// everything between the scheme and the last @ of the host part.
		return RedactURLs(url)
	}
	if ep.Password == "" {
		return url
	}
	ep.Password = "xxxxx"
	return ep.String()
}

// withoutCredentials is url as written to a cache clone's git config: for
// HTTP(S), without user info, whose password or user name may be a token;
// the credentials live in memory only (Auth.method). Other URLs keep their
// user (ssh's git@), never a password.
func withoutCredentials(url string) string {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return RedactURLs(url)
	}
	if ep.Protocol == "http" || ep.Protocol == "https" {
		ep.User = ""
	} else if ep.Password == "" {
		return url
	}
	ep.Password = ""
	return ep.String()
}

// RedactURLs makes a message safe to log or show (see internal/redact): it
// drops the user info of every URL in s and hides secret query values,
// echoed Authorization headers and token shapes. Forge and registry error
// bodies go through it as URLs do.
func RedactURLs(s string) string { return redaction.Text(s) }
