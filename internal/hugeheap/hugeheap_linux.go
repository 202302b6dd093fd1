package hugeheap

import (
	"runtime"
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// advised is the range the last reserve advised, for tests.
var advised struct{ beg, end uintptr }

// reserve allocates n bytes in one piece: the runtime maps fresh memory
// for it and, fresh memory being zero already, touches none of it. The
// hint covers the piece's 2 MiB-aligned middle and belongs to the mapping,
// so it outlives the piece: collecting it hands the pages back to the
// allocator, which takes the lowest free addresses first, and a page the
// runtime releases and takes again is still advised.
func reserve(n int) {
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	beg := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(n)) &^ (hugePage - 1)
	// A kernel without transparent huge pages answers EINVAL: the heap
	// then stays as it was, which is all the hint could ask for.
	if end > beg && syscall.Madvise(b[beg-p:end-p], syscall.MADV_HUGEPAGE) == nil {
		advised.beg, advised.end = beg, end
	}
	runtime.KeepAlive(b) // the last use: the collection below finds the piece dead
	runtime.GC()
}
