//go:build unix

package fbc

import (
	"io/fs"
	"syscall"
)

// mapFile maps the first size bytes of f read-only, when f is an open
// file of the operating system; ok is false when it is not or when the
// mapping is refused (an empty file, a file system without mmap), and
// the caller reads the file instead.
func mapFile(f fs.File, size int64) (mem []byte, ok bool) {
	conn, isFile := f.(syscall.Conn)
	if !isFile || size <= 0 || int64(int(size)) != size {
		return nil, false
	}
	raw, err := conn.SyscallConn()
	if err != nil {
		return nil, false
	}
	var mapErr error
	if err := raw.Control(func(fd uintptr) {
		mem, mapErr = syscall.Mmap(int(fd), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
	}); err != nil || mapErr != nil {
		return nil, false
	}
	return mem, true
}

// unmapFile lets go of a mapping from mapFile.
func unmapFile(mem []byte) error {
	return syscall.Munmap(mem)
}
