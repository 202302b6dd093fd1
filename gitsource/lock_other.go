//go:build !unix

package gitsource

import (
	"context"
	"os"
)

// lockFile opens path without locking it: outside Unix, processes sharing
// a cache folder are not serialised, and should not share one.
func lockFile(_ context.Context, path string) (*os.File, error) {
	return os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
}
