package githubtest

import (
	"net/url"
	"strconv"
)

// The JSON documents below follow the shapes GitHub documents for pull
// requests ("pull-request-simple" in lists, "pull-request" otherwise),
// with the fields a client may read; the rest are left out.

type userJSON struct {
	Login     string `json:"login"`
	ID        int64  `json:"id"`
	NodeID    string `json:"node_id"`
	Type      string `json:"type"`
	URL       string `json:"url"`
	HTMLURL   string `json:"html_url"`
	SiteAdmin bool   `json:"site_admin"`
}

type repoJSON struct {
	ID            int64    `json:"id"`
	NodeID        string   `json:"node_id"`
	Name          string   `json:"name"`
	FullName      string   `json:"full_name"`
	Owner         userJSON `json:"owner"`
	Private       bool     `json:"private"`
	Fork          bool     `json:"fork"`
	URL           string   `json:"url"`
	HTMLURL       string   `json:"html_url"`
	DefaultBranch string   `json:"default_branch"`
}

type refJSON struct {
	Label string   `json:"label"`
	Ref   string   `json:"ref"`
	SHA   string   `json:"sha"`
	User  userJSON `json:"user"`
	Repo  repoJSON `json:"repo"`
}

type labelJSON struct {
	ID          int64   `json:"id"`
	NodeID      string  `json:"node_id"`
	URL         string  `json:"url"`
	Name        string  `json:"name"`
	Color       string  `json:"color"`
	Default     bool    `json:"default"`
	Description *string `json:"description"`
}

type pullJSON struct {
	URL               string      `json:"url"`
	ID                int64       `json:"id"`
	NodeID            string      `json:"node_id"`
	HTMLURL           string      `json:"html_url"`
	DiffURL           string      `json:"diff_url"`
	PatchURL          string      `json:"patch_url"`
	IssueURL          string      `json:"issue_url"`
	StatusesURL       string      `json:"statuses_url"`
	Number            int         `json:"number"`
	State             string      `json:"state"`
	Locked            bool        `json:"locked"`
	Title             string      `json:"title"`
	User              userJSON    `json:"user"`
	Body              *string     `json:"body"`
	Labels            []labelJSON `json:"labels"`
	CreatedAt         string      `json:"created_at"`
	UpdatedAt         string      `json:"updated_at"`
	ClosedAt          *string     `json:"closed_at"`
	MergedAt          *string     `json:"merged_at"`
	MergeCommitSHA    *string     `json:"merge_commit_sha"`
	Draft             bool        `json:"draft"`
	Head              refJSON     `json:"head"`
	Base              refJSON     `json:"base"`
	AuthorAssociation string      `json:"author_association"`
}

// fullPullJSON adds what GitHub sends only for a single pull request.
type fullPullJSON struct {
	pullJSON
	Merged              bool      `json:"merged"`
	Mergeable           *bool     `json:"mergeable"`
	MergeableState      string    `json:"mergeable_state"`
	MergedBy            *userJSON `json:"merged_by"`
	Comments            int       `json:"comments"`
	MaintainerCanModify bool      `json:"maintainer_can_modify"`
}

// viewer is the user the token belongs to: the author of everything the
// fake creates.
func (s *Server) viewer() userJSON {
	return userJSON{Login: "githubtest-user", ID: 1, NodeID: "U_1", Type: "User",
		URL: s.URL + "/users/githubtest-user", HTMLURL: s.URL + "/githubtest-user"}
}

func (s *Server) ownerJSON() userJSON {
	return userJSON{Login: s.opts.Owner, ID: 2, NodeID: "O_2", Type: "Organization",
		URL: s.URL + "/users/" + s.opts.Owner, HTMLURL: s.URL + "/" + s.opts.Owner}
}

func (s *Server) repoJSON() repoJSON {
	return repoJSON{ID: 3, NodeID: "R_3", Name: s.opts.Repo, FullName: s.opts.Owner + "/" + s.opts.Repo,
		Owner: s.ownerJSON(), Private: true, URL: s.apiURL(""), HTMLURL: s.webURL(""), DefaultBranch: "main"}
}

func (s *Server) refJSON(ref, sha string) refJSON {
	return refJSON{Label: s.opts.Owner + ":" + ref, Ref: ref, SHA: sha, User: s.ownerJSON(), Repo: s.repoJSON()}
}

func (s *Server) labelsJSON(names []string) []labelJSON {
	out := []labelJSON{}
	for _, name := range names {
		l := s.label(name)
		out = append(out, labelJSON{ID: l.ID, NodeID: "LA_" + strconv.FormatInt(l.ID, 10),
			URL: s.apiURL("/labels/" + url.PathEscape(l.Name)), Name: l.Name, Color: "ededed"})
	}
	return out
}

func (s *Server) pullJSON(p *PR) pullJSON {
	n := strconv.Itoa(p.Number)
	var mergeSHA *string
	if p.Merged {
		mergeSHA = &p.MergeCommitSHA
	}
	return pullJSON{
		URL: s.apiURL("/pulls/" + n), ID: int64(100000 + p.Number), NodeID: "PR_" + n,
		HTMLURL: s.webURL("/pull/" + n), DiffURL: s.webURL("/pull/" + n + ".diff"),
		PatchURL: s.webURL("/pull/" + n + ".patch"), IssueURL: s.apiURL("/issues/" + n),
		StatusesURL: s.apiURL("/statuses/" + p.HeadSHA),
		Number:      p.Number, State: p.State, Title: p.Title, User: s.viewer(), Body: optString(p.Body),
		Labels: s.labelsJSON(p.Labels), CreatedAt: timestamp(p.CreatedAt), UpdatedAt: timestamp(p.UpdatedAt),
		ClosedAt: optTimestamp(p.ClosedAt), MergedAt: optTimestamp(p.MergedAt), MergeCommitSHA: mergeSHA,
		Head: s.refJSON(p.Head, p.HeadSHA), Base: s.refJSON(p.Base, p.BaseSHA), AuthorAssociation: "MEMBER",
	}
}

func (s *Server) fullPullJSON(p *PR) fullPullJSON {
	full := fullPullJSON{pullJSON: s.pullJSON(p), Merged: p.Merged, MergeableState: "unknown",
		Comments: len(p.Comments), MaintainerCanModify: false}
	if p.Merged {
		v := s.viewer()
		full.MergedBy = &v
	}
	return full
}
