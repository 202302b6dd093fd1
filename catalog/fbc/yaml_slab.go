package fbc

// slab hands out the entry slices of one document's mappings and
// sequences from a few large chunks that the next document reuses. A
// document's nodes all die once its object is built, and giving each
// collection a slice of its own was 40% of the bytes loading allocated:
// fresh spans to zero and page in, and more collections.
type slab[T any] struct {
	chunk []T // len: what is handed out
}

// minSlab is the first chunk's length: most documents fit.
const minSlab = 64

// take returns a copy of src in the slab, capped so that appending to it
// cannot reach the next slice handed out.
func (s *slab[T]) take(src []T) []T {
	if len(src) == 0 {
		return nil
	}
	if cap(s.chunk)-len(s.chunk) < len(src) {
		// The full chunk stays alive through the nodes it holds until
		// the document is done; the next document starts in this one.
		s.chunk = make([]T, 0, max(2*cap(s.chunk), len(src), minSlab))
	}
	i := len(s.chunk)
	s.chunk = append(s.chunk, src...)
	return s.chunk[i:len(s.chunk):len(s.chunk)]
}

// reset takes back everything handed out. Only when nothing refers to
// it any more: the caller's nodes would read the next document's.
func (s *slab[T]) reset() {
	clear(s.chunk)
	s.chunk = s.chunk[:0]
}
