package gitsource

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"time"
)

// writeFile creates or truncates the file at full with data. A worktree
// commit writes about 160 files per cluster: through os.OpenFile each
// also tried to register the file with the network poller (a failing
// epoll_ctl on Linux) and set up a cleanup, which together cost more
// than the open itself.
func writeFile(full string, data []byte, perm fs.FileMode) (fs.FileInfo, error) {
	var fd int
	err := retryEINTR(func() (err error) {
		fd, err = syscall.Open(full, syscall.O_CREAT|syscall.O_TRUNC|syscall.O_WRONLY|syscall.O_CLOEXEC, uint32(perm.Perm()))
		return err
	})
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: full, Err: err}
	}
	err = writeAllFD(fd, data)
	var st syscall.Stat_t
	if err == nil {
		err = retryEINTR(func() error { return syscall.Fstat(fd, &st) })
	}
	if cerr := syscall.Close(fd); err == nil && cerr != nil {
		err = &fs.PathError{Op: "close", Path: full, Err: cerr}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "write", Path: full, Err: err}
	}
	// What the index records of the file: its size and modification time.
	return &fileInfo{name: filepath.Base(full), size: st.Size, mode: perm, modTime: time.Unix(int64(st.Mtim.Sec), int64(st.Mtim.Nsec))}, nil
}

func writeAllFD(fd int, data []byte) error {
	for len(data) > 0 {
		var n int
		err := retryEINTR(func() (err error) {
			n, err = syscall.Write(fd, data)
			return err
		})
		if err != nil {
			return err
		}
		if n == 0 {
			return syscall.EIO // a regular file never takes nothing
		}
		data = data[n:]
	}
	return nil
}

func retryEINTR(f func() error) error {
	for {
		if err := f(); err != syscall.EINTR {
			return err
		}
	}
}
