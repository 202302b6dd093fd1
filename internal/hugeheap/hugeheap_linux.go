package hugeheap

import (
	"runtime"
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// reserve allocates n bytes in one piece: the runtime maps fresh memory
// for it and, fresh memory being zero already, touches none of it. The
// hint covers the piece's 2 MiB-aligned middle and belongs to the mapping,
// so it outlives the piece: collecting it hands the pages back to the
// allocator, which takes the lowest free addresses first, and a page the
// runtime releases and takes again is still advised. It returns the
// advised range, empty when the kernel refused.
func reserve(n int) (beg, end uintptr) {
	b := make([]byte, n)
	p := uintptr(unsafe.Pointer(unsafe.SliceData(b)))
	beg = (p + hugePage - 1) &^ (hugePage - 1)
	end = (p + uintptr(n)) &^ (hugePage - 1)
	// A kernel without transparent huge pages answers EINVAL: the heap
	// then stays as it was, which is all the hint could ask for.
	if end <= beg || syscall.Madvise(b[beg-p:end-p], syscall.MADV_HUGEPAGE) != nil {
		beg, end = 0, 0
	}
	runtime.KeepAlive(b) // the last use: the collection below finds the piece dead
	runtime.GC()
	return beg, end
}
