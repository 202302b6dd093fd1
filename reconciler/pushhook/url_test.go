package pushhook

import "testing"

func TestSameRepository(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{name: "scp-like and https", a: "git@github.com:o/r.git", b: "https://github.com/o/r", want: true},
		{name: "ssh and https", a: "ssh://git@github.com/o/r.git", b: "https://github.com/o/r", want: true},
		{name: "git protocol and scp-like", a: "git://github.com/o/r", b: "git@github.com:o/r.git", want: true},
		{name: "http and https", a: "http://git.example.com/o/r", b: "https://git.example.com/o/r.git", want: true},
		{name: "host case", a: "https://GitHub.COM/o/r", b: "https://github.com/o/r", want: true},
		{name: "scheme case", a: "HTTPS://github.com/o/r", b: "ssh://git@github.com/o/r", want: true},
		{name: "https default port", a: "https://github.com:443/o/r", b: "https://github.com/o/r", want: true},
		{name: "ssh default port", a: "ssh://git@github.com:22/o/r", b: "git@github.com:o/r", want: true},
		{name: "git default port", a: "git://github.com:9418/o/r", b: "https://github.com/o/r", want: true},
		{name: "http default port", a: "http://git.example.com:80/o/r", b: "https://git.example.com/o/r", want: true},
		{name: "trailing slash", a: "https://github.com/o/r/", b: "https://github.com/o/r", want: true},
		{name: "trailing .git and slash", a: "https://github.com/o/r.git/", b: "git@github.com:o/r", want: true},
		{name: "credentials dropped", a: "https://x-access-token:ghp_secret@github.com/o/r.git", b: "https://github.com/o/r", want: true},
		{name: "user in ssh dropped", a: "ssh://deploy@github.com/o/r", b: "ssh://git@github.com/o/r", want: true},
		{name: "scp-like absolute path", a: "git@git.example.com:/srv/git/r.git", b: "ssh://git@git.example.com/srv/git/r", want: true},
		{name: "non-default port on both", a: "ssh://git@gitea.example.com:2222/o/r.git", b: "ssh://gitea.example.com:2222/o/r", want: true},
		{name: "nested groups", a: "git@gitlab.example.com:g/sub/r.git", b: "https://gitlab.example.com/g/sub/r", want: true},
		{name: "IPv6 host", a: "ssh://git@[::1]/o/r", b: "git@[::1]:o/r.git", want: true},
		{name: "percent-escaped path", a: "https://git.example.com/o/r%2Bx", b: "git@git.example.com:o/r+x", want: true},

		{name: "different owner", a: "https://github.com/o/r", b: "https://github.com/p/r"},
		{name: "different repository", a: "https://github.com/o/r", b: "https://github.com/o/r2"},
		{name: "different host", a: "https://github.com/o/r", b: "https://gitlab.com/o/r"},
		{name: "path case", a: "https://github.com/Owner/Repo", b: "https://github.com/owner/repo"},
		{name: "different non-default port", a: "https://git.example.com:8443/o/r", b: "https://git.example.com/o/r"},
		{name: "ports differ", a: "http://h.example.com:3000/o/r", b: "http://h.example.com:3001/o/r"},
		{name: "prefix of path", a: "https://github.com/o/r", b: "https://github.com/o/r/extra"},
		{name: "subgroup", a: "https://gitlab.example.com/g/r", b: "https://gitlab.example.com/g/sub/r"},
		{name: "api URL is not the repository", a: "https://gitea.example.com/api/v1/repos/o/r", b: "https://gitea.example.com/o/r"},
		{name: "empty", a: "", b: ""},
		{name: "local path", a: "/srv/git/r.git", b: "/srv/git/r.git"},
		{name: "file scheme", a: "file:///srv/git/r.git", b: "file:///srv/git/r.git"},
		{name: "unknown scheme", a: "ftp://git.example.com/o/r", b: "ftp://git.example.com/o/r"},
		{name: "no path", a: "https://github.com", b: "https://github.com/"},
		{name: "only .git", a: "https://github.com/.git", b: "https://github.com/.git"},
		{name: "no host", a: "https:///o/r", b: "https:///o/r"},
		{name: "bad port", a: "ssh://git@github.com:o/r.git", b: "git@github.com:o/r.git"},
		{name: "space", a: "https://github.com/o/r x", b: "https://github.com/o/r x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := SameRepository(tt.a, tt.b); got != tt.want {
				t.Errorf("SameRepository(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
			}
			if got := SameRepository(tt.b, tt.a); got != tt.want {
				t.Errorf("SameRepository(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
			}
		})
	}
}

func TestPushMatches(t *testing.T) {
	p := Push{
		URLs:   []string{"https://github.com/acme/gitops.git", "git@github.com:acme/gitops.git"},
		Branch: "main",
		After:  "0d1a26e67d8f5eaf1f6ba5c57fc3c7d91ac0fd1c",
	}
	tests := []struct {
		name, url, branch string
		want              bool
	}{
		{name: "https URL, same branch", url: "https://github.com/acme/gitops", branch: "main", want: true},
		{name: "ssh URL with credentials", url: "ssh://git:token@github.com/acme/gitops.git", branch: "main", want: true},
		{name: "other branch", url: "https://github.com/acme/gitops", branch: "release/4.20"},
		{name: "branch case", url: "https://github.com/acme/gitops", branch: "Main"},
		{name: "other repository", url: "https://github.com/acme/other", branch: "main"},
		{name: "empty branch", url: "https://github.com/acme/gitops", branch: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := p.Matches(tt.url, tt.branch); got != tt.want {
				t.Errorf("Matches(%q, %q) = %v, want %v", tt.url, tt.branch, got, tt.want)
			}
		})
	}
}
