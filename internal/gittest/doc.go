// Package gittest serves bare git repositories over smart HTTP on
// 127.0.0.1 and writes commits into them with the git CLI, for the tests of
// gitsource and of the packages built on it.
//
// The server is git's own http-backend behind net/http/cgi, so tests run
// against the real protocol implementation, not against go-git talking to
// itself. Tests skip when git is not installed.
package gittest
