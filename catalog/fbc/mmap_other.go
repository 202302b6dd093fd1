//go:build !unix

package fbc

import "io/fs"

// mapFile never maps here: files are read into the worker's buffer.
func mapFile(fs.File, int64) ([]byte, bool) { return nil, false }

// unmapFile is never called where mapFile does not map.
func unmapFile([]byte) error { return nil }
