// Package githubtest is an in-memory fake of the part of GitHub's REST API
// that gitsource/github uses, for tests: pull requests (list, create,
// update), their labels and comments, and commit statuses (create, combined
// status).
//
// The fake speaks GitHub's JSON shapes and errors (401 "Bad credentials",
// 422 "Validation Failed" with its errors list, 404 "Not Found"), checks
// the bearer token, paginates with Link headers (per_page, default 30, at
// most 100), and answers under both / and /api/v3/ so that github.com and
// GitHub Enterprise base URLs reach it.
//
// It is backed by a real bare git repository: pull requests' head and base
// commits are read from its ref files (git answers for anything but a
// plain branch), and Merge performs a real
// merge in it (fast-forward when possible, else a merge commit), moving the
// base branch the way GitHub's merge button would. Tests drive the rest of
// GitHub's side with ClosePR, ExhaustRateLimit and Throttle, and inspect
// what was asked with PR, StatusesFor, Requests and CountRequests.
//
// Only one repository (Options.Owner/Options.Repo) exists; every other
// path answers 404 like GitHub does for routes it does not know.
package githubtest
