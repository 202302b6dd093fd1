package hugeheap

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestReserve checks both halves of what Reserve relies on: the kernel
// keeps the hint on the heap's mapping, and the allocations that follow
// land in the advised memory.
func TestReserve(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("this kernel has no transparent huge pages:", err)
	}
	beg, end := reserve(8 << 20)
	if beg == 0 {
		t.Fatal("reserve advised nothing")
	}
	flags, err := vmFlags(beg)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(flags, "hg") {
		t.Fatalf("the mapping at %#x has flags %v, no hg (MADV_HUGEPAGE)", beg, flags)
	}
	// Allocate up to the reservation's size in pieces small enough for the
	// allocator's ordinary spans, keeping them live.
	var kept [][]byte
	for range (8 << 20) / (32 << 10) {
		b := make([]byte, 32<<10)
		kept = append(kept, b)
		if p := uintptr(unsafe.Pointer(&b[0])); p >= beg && p < end {
			return
		}
	}
	runtime.KeepAlive(kept)
	t.Fatalf("no allocation landed in the advised %#x-%#x", beg, end)
}

// vmFlags returns the VmFlags of the mapping holding addr.
func vmFlags(addr uintptr) ([]string, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x ", &lo, &hi); n == 2 {
			in = addr >= lo && addr < hi
			continue
		}
		if v, ok := strings.CutPrefix(line, "VmFlags:"); ok && in {
			return strings.Fields(v), nil
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("no mapping holds %#x", addr)
}
