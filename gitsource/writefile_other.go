//go:build !linux

package gitsource

import (
	"io/fs"
	"os"
)

// writeFile creates or truncates the file at full with data.
func writeFile(full string, data []byte, perm fs.FileMode) (fs.FileInfo, error) {
	f, err := os.OpenFile(full, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, perm)
	if err != nil {
		return nil, err
	}
	_, err = f.Write(data)
	var fi fs.FileInfo
	if err == nil {
		fi, err = f.Stat()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return fi, err
}
