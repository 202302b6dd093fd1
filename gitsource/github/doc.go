// Package github is the gitsource.Forge of GitHub and GitHub Enterprise
// Server: a proposal is a pull request, a status a commit status, both
// through the REST API (go-github).
//
// Every method is idempotent, so a reconcile that failed halfway can simply
// run again: Propose updates the open pull request of a head branch rather
// than opening a second one and only sends what changed, and SetStatus
// never re-posts the status a commit already has for a context (GitHub
// keeps at most 1000 statuses per commit and context).
//
// Errors wrap gitsource.ErrForge and name the request (method and path)
// and GitHub's own message; refused credentials and rate limits say what
// to do about them. The token is sent as a bearer token to the API host
// only, and appears in no error and no log line.
package github
