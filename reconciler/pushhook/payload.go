package pushhook

import (
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"strings"
)

// Push is what a verified push event says: which repository moved, on
// which branch, to which commit.
type Push struct {
	// URLs are every address the payload gives for the repository (clone,
	// ssh, git and web URLs), in payload order, without duplicates; a
	// Repository object matches the push when its URL names the same
	// repository as any of them.
	URLs []string
	// Branch is the branch pushed, without "refs/heads/".
	Branch string
	// After is the commit the branch points at after the push, as the
	// forge wrote it; a fetch finds the same commit or a later one.
	After string
}

// Matches reports whether the push moved branch of the repository at url:
// the branch is compared exactly, the URL with SameRepository.
func (p Push) Matches(url, branch string) bool {
	if branch != p.Branch {
		return false
	}
	for _, u := range p.URLs {
		if SameRepository(url, u) {
			return true
		}
	}
	return false
}

const (
	jsonType = "application/json"
	formType = "application/x-www-form-urlencoded"
)

// mediaType returns the lower-case media type of a Content-Type header,
// without parameters, or "" when it does not parse.
func mediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return mt
}

// pushPayload holds the fields of GitHub's, Gitea's, Forgejo's and
// GitLab's push payloads that say what moved; the rest is not decoded.
type pushPayload struct {
	Ref        string    `json:"ref"`
	After      string    `json:"after"`
	Deleted    bool      `json:"deleted"`
	Repository repoLinks `json:"repository"`
	Project    repoLinks `json:"project"` // GitLab
	// A status event's: the commit, the status's context and state.
	SHA     string `json:"sha"`
	Context string `json:"context"`
	State   string `json:"state"`
}

// repoLinks are the URL fields of a payload's repository (GitHub, Gitea,
// Forgejo, GitLab's legacy repository) or project (GitLab).
type repoLinks struct {
	CloneURL   string `json:"clone_url"`
	SSHURL     string `json:"ssh_url"`
	GitURL     string `json:"git_url"`
	HTMLURL    string `json:"html_url"`
	URL        string `json:"url"`
	GitHTTPURL string `json:"git_http_url"`
	GitSSHURL  string `json:"git_ssh_url"`
	HTTPURL    string `json:"http_url"`
	WebURL     string `json:"web_url"`
	Homepage   string `json:"homepage"`
}

func (l repoLinks) all() []string {
	return []string{l.CloneURL, l.SSHURL, l.GitURL, l.HTMLURL, l.URL,
		l.GitHTTPURL, l.GitSSHURL, l.HTTPURL, l.WebURL, l.Homepage}
}

// pushOf reads what a push payload moved. ignored is set, with a reason,
// for a push that moves no branch: a tag push or a branch deletion.
func pushOf(pl pushPayload) (p Push, ignored string, err error) {
	if pl.Ref == "" {
		return Push{}, "", refuse(http.StatusBadRequest, "push payload has no ref")
	}
	branch, ok := strings.CutPrefix(pl.Ref, "refs/heads/")
	if !ok || branch == "" {
		return Push{}, pl.Ref + " is not a branch", nil
	}
	if pl.Deleted || isZeroID(pl.After) {
		return Push{}, "branch " + branch + " was deleted", nil
	}
	p = Push{Branch: branch, After: pl.After, URLs: pl.urls()}
	if len(p.URLs) == 0 {
		return Push{}, "", refuse(http.StatusBadRequest, "push payload names no repository URL")
	}
	return p, "", nil
}

// urls lists the payload's repository URLs, in order, without duplicates.
func (pl pushPayload) urls() []string {
	var out []string
	seen := map[string]bool{}
	for _, u := range append(pl.Repository.all(), pl.Project.all()...) {
		if u != "" && !seen[u] {
			seen[u] = true
			out = append(out, u)
		}
	}
	return out
}

// isZeroID reports whether id is git's null object id, which forges send
// as the new head of a deleted branch (40 zeros, or 64 with SHA-256).
func isZeroID(id string) bool {
	return id != "" && strings.Trim(id, "0") == ""
}

// jsonRefusal names where the payload stopped being JSON a push decodes.
func jsonRefusal(err error) error {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var rf *refusal
	switch {
	case errors.As(err, &rf):
		return rf
	case errors.As(err, &syntax):
		return refuse(http.StatusBadRequest, fmt.Sprintf("malformed push payload at byte offset %d: %v", syntax.Offset, err))
	case errors.As(err, &typ):
		return refuse(http.StatusBadRequest, fmt.Sprintf("malformed push payload at byte offset %d: %v", typ.Offset, err))
	default:
		return refuse(http.StatusBadRequest, "malformed push payload: "+err.Error())
	}
}
