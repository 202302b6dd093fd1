package github

import (
	"net/url"
	"strings"

	"github.com/olmops/olmops/gitsource"
)

// FileURL is where a person reads path as it is at commit, in GitHub's
// web interface: github.com for the public API, the server's own host for
// GitHub Enterprise (its API lives under /api/v3/).
func (f *Forge) FileURL(commit, path string) string {
	web := "https://github.com/"
	if base := f.client.BaseURL; base != nil && base.Host != "api.github.com" {
		u := *base
		u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), "/api/v3") + "/"
		web = u.String()
	}
	return web + url.PathEscape(f.owner) + "/" + url.PathEscape(f.repo) + "/blob/" + commit + "/" + path
}

var _ gitsource.FileLinker = (*Forge)(nil)
