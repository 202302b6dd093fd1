// Package hugeheap asks Linux to back the heap a short-lived command is
// about to fill with transparent huge pages.
//
// On the virtual machines olmops is measured on, the first touch of each
// fresh 4 KiB page is dear (~19 µs on a paravirtualised guest, most of it
// in the hypervisor), and loading ocp-v4.20 fills ~16 MiB of fresh heap: a
// quarter of the CPU time of `olmops validate` went to its ~4,400 page
// faults. A 2 MiB page costs one fault. Since Go 1.21.1 the runtime maps
// its heap without the hint (huge pages can waste memory in long-running
// servers), and Linux distributions default to huge pages only where a
// program asks for them ("madvise"), so a command has to ask itself. The
// controller, a long-running process, does not.
package hugeheap

import (
	"os"
	"strings"
	"sync"
)

// Size is what a catalog command reserves: the heap peak of loading the
// largest public catalog (ocp-v4.20, 37 MB of files, ~16 MiB of heap) with
// room to spare. Pages never touched cost address space only.
const Size = 32 << 20

var once sync.Once

// Reserve maps n bytes of heap in one piece and advises huge pages for
// them, once per process; the allocations that follow take that memory
// first. It costs a garbage collection, which a short command that would
// not have collected at all pays for (~10 ms): call it before work that
// fills several MiB of heap. It does nothing where the kernel has no such
// hint, and nothing when GODEBUG has disablethp=1, the Go runtime's own
// switch for keeping huge pages away from the heap.
func Reserve(n int) {
	once.Do(func() {
		if n > 0 && !disabled(os.Getenv("GODEBUG")) {
			reserve(n)
		}
	})
}

// disabled reports whether a GODEBUG value turns huge pages off; the last
// setting wins, as in the runtime.
func disabled(godebug string) bool {
	off := false
	for _, kv := range strings.Split(godebug, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(kv), "disablethp="); ok {
			off = v == "1"
		}
	}
	return off
}
