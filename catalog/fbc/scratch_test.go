package fbc

import (
	"testing"
	"unsafe"
)

// TestReleaseLeavesNoPointers bails out of a mapping halfway through its
// entries and checks that the stacks and slabs go back to the pool clean,
// over their whole capacity: the pool must not keep a file's nodes alive.
func TestReleaseLeavesNoPointers(t *testing.T) {
	for _, doc := range []string{
		"a: 1\nb:\n- x\n- y\n c: under-indented\n",
		"a: 1\nb:\n  c:\n    d: [e]\n  f: g\n   h: over-indented\n",
		"a: 1\nb: 2\n",
	} {
		p := &yparser{data: []byte(doc)}
		p.getScratch()
		p.setLine(0, 1)
		func() {
			defer func() { _ = recover() }()
			n := p.skimMap(0, 0)
			p.force(&n)
		}()
		s := p.release()
		if len(s.k) != 0 || len(s.v) != 0 {
			t.Errorf("%q: released stacks of %d and %d entries, want empty", doc, len(s.k), len(s.v))
		}
		for i, k := range s.k[:cap(s.k)] {
			if k != (ykey{}) {
				t.Errorf("%q: key %d left in the pool: %q", doc, i, k.s)
			}
		}
		for i, v := range append(s.v[:cap(s.v)], s.vals.chunk[:cap(s.vals.chunk)]...) {
			if v.kind != yNull || v.str != "" || v.keys != nil || v.vals != nil {
				t.Errorf("%q: node %d left in the pool: %+v", doc, i, v)
			}
		}
		if len(s.keys.chunk) != 0 || len(s.vals.chunk) != 0 {
			t.Errorf("%q: released slabs of %d and %d entries, want empty", doc, len(s.keys.chunk), len(s.vals.chunk))
		}
		for i, k := range s.keys.chunk[:cap(s.keys.chunk)] {
			if k != (ykey{}) {
				t.Errorf("%q: slab key %d left in the pool: %q", doc, i, k.s)
			}
		}
	}
}

// TestNodeSize holds a node to its 32-bit layout: a catalog file makes
// hundreds of thousands of them, and their bytes are most of what loading
// allocates.
func TestNodeSize(t *testing.T) {
	if got := unsafe.Sizeof(ynode{}); got > 104 {
		t.Errorf("a ynode is %d bytes, want at most 104", got)
	}
}
