package fbc

import (
	"errors"
	"fmt"
	"io/fs"
	"runtime/debug"
	"unsafe"
)

// defaultMapFrom is the size from which a load worker decodes a file
// straight from a read-only mapping of it instead of copying it into its
// buffer with read(2): the copy was a tenth of validate's CPU. Below it
// the mapping's own system calls and page-table work cost more than the
// copy they save (docs/performance.md has the measurements).
const defaultMapFrom = 64 << 10

// errChanged says a file changed while it was decoded from its mapping.
var errChanged = errors.New("file changed while it was read")

// loadMapped decodes name from a mapping of its first size bytes (what
// the caller stat'ed and held to the size limit, so the mapping is as
// bounded as the buffer). mapped is false when the file cannot be mapped;
// the caller then reads it, and reports any error opening it.
//
// Nothing decoded keeps a reference into the mapping: detach copies or
// refers to the file by offset, as it does for the read buffer, and the
// mapping is gone when this returns.
func loadMapped(fsys fs.FS, name, display string, size int64, span *fileSpan) (r fileResult, mapped bool) {
	f, err := fsys.Open(name)
	if err != nil {
		return fileResult{}, false
	}
	defer f.Close()
	mem, ok := mapFile(f, size)
	if !ok {
		return fileResult{}, false
	}
	var cfg *Config
	var decodeErr error
	faulted := guardFaults(mem, func() {
		cfg, decodeErr = Decode(display, mem)
		if cfg != nil {
			cfg.detach(mem, span)
		}
	})
	// A file truncated under the mapping faults on the pages it lost but
	// reads zeros up to the end of its last page, and one that grew was
	// decoded short: its size now says whether what was decoded is the
	// file. (A change in place that keeps the size is as invisible here
	// as to read(2).)
	fi, statErr := f.Stat()
	unmapErr := unmapFile(mem)
	switch {
	case faulted || statErr != nil || fi.Size() != size:
		msg := "file changed while it was read"
		if statErr == nil && fi.Size() != size {
			msg = fmt.Sprintf("file changed while it was read: %d bytes, then %d", size, fi.Size())
		}
		return fileResult{err: &Error{Pos: Pos{File: display}, Msg: msg, Err: errors.Join(errChanged, statErr)}}, true
	case unmapErr != nil:
		return fileResult{cfg: cfg, err: errors.Join(decodeErr, &Error{Pos: Pos{File: display}, Msg: "cannot unmap file", Err: unmapErr})}, true
	}
	return fileResult{cfg: cfg, err: decodeErr}, true
}

// guardFaults runs read, which reads mem, with memory faults turned into
// panics for this goroutine only: a mapped file truncated under the
// reader raises SIGBUS on the pages it lost, which would otherwise crash
// the process. A fault inside mem is reported as faulted; any other panic
// goes on.
func guardFaults(mem []byte, read func()) (faulted bool) {
	was := debug.SetPanicOnFault(true)
	defer debug.SetPanicOnFault(was)
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if fault, ok := r.(interface{ Addr() uintptr }); ok && within(mem, fault.Addr()) {
			faulted = true
			return
		}
		panic(r)
	}()
	read()
	return false
}

// within reports whether addr is one of mem's bytes.
func within(mem []byte, addr uintptr) bool {
	base := uintptr(unsafe.Pointer(unsafe.SliceData(mem)))
	return len(mem) > 0 && addr >= base && addr-base < uintptr(len(mem))
}

// isFault reports whether a recovered panic is a memory fault, which only
// guardFaults's goroutines turn into panics.
func isFault(r any) bool {
	_, ok := r.(interface{ Addr() uintptr })
	return ok
}
