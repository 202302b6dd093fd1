package fbc

import (
	"bytes"
	"encoding/binary"
	"testing"
)

// plainByte is notPlain8's definition for one byte.
func plainByte(c byte) bool { return c == '\n' || (c >= 0x20 && c <= 0x7e) }

// TestNotPlain8 tries every byte value at every position of a word, among
// neighbours of each kind that matters to a carry or a borrow: printable,
// line end, the top of ASCII and the top of a byte.
func TestNotPlain8(t *testing.T) {
	for _, fill := range []byte{'a', '\n', ' ', '~', 0x7f, 0x80, 0xff, 0x00} {
		for pos := range 8 {
			for v := range 256 {
				w := bytes.Repeat([]byte{fill}, 8)
				w[pos] = byte(v)
				want := true
				for _, c := range w {
					want = want && plainByte(c)
				}
				if got := notPlain8(binary.LittleEndian.Uint64(w)) == 0; got != want {
					t.Fatalf("notPlain8(% x) == 0 is %v, want %v", w, got, want)
				}
			}
		}
	}
}

// BenchmarkFastEligible scans catalog-like YAML, the common case.
func BenchmarkFastEligible(b *testing.B) {
	line := []byte("    - name: operator.v1.2.3\n      replaces: operator.v1.2.2\n      skipRange: '>=1.0.0 <1.2.3'\n")
	data := bytes.Repeat(line, (1<<20)/len(line))
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if !fastEligible(data) {
			b.Fatal("not eligible")
		}
	}
}

// TestFastEligibleEveryPosition puts one byte that matters at every
// position of inputs of every length around the 8- and 32-byte steps, so
// that no word of a block and no tail goes unread.
func TestFastEligibleEveryPosition(t *testing.T) {
	for n := 1; n <= 80; n++ {
		for pos := range n {
			for _, c := range []byte{0x00, '\t', '\r', 0x7f, 0xc3, 0xff} {
				data := bytes.Repeat([]byte("ab: c\n"), n/6+1)[:n]
				data[pos] = c
				if got, want := fastEligible(data), eligibleByRune(data); got != want {
					t.Fatalf("fastEligible(%q) = %v, want %v", data, got, want)
				}
			}
		}
	}
}
