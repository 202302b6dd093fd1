// Package workflows checks the GitHub Actions workflows the repository
// ships (its release workflow and the example review workflow) with
// actionlint, so that a broken workflow fails `make test` rather than a
// release. It holds tests only.
package workflows
