package fbc

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"unicode/utf8"
)

// The fast YAML path reads the block-YAML subset catalogs are written in
// (what opm render and friends emit) without building a node for every
// value: a mapping is first skimmed, recording where each value starts and
// ends by indentation, and a value is parsed only when the object builder
// asks for it. Large values nobody asks for (olm.csv.metadata,
// olm.bundle.object, icons) stay raw YAML spans.
//
// Anything outside the subset (anchors, aliases, tags in structure, complex
// keys, multi-line flow collections, tabs in indentation, keep-chomped
// block scalars, CR line ends, ...) or any problem the object builder
// reports makes the whole file go through the reference decoder, so the
// fast path never changes what a file means or how its errors read.

// errBail aborts the fast path; decodeYAMLFast recovers it.
type errBail struct{ why string }

// strictFast makes the fast paths re-panic on anything but errBail; the
// tests set it so that a bug shows up instead of a silent fallback.
var strictFast = false

// fallBack, deferred by a fast path, turns a bail into "not decoded here":
// the result is cleared and the caller takes the reference decoder.
func fallBack[T any](out *T, ok *bool) {
	if r := recover(); r != nil {
		if _, isBail := r.(errBail); !isBail && strictFast {
			panic(r)
		}
		var zero T
		*out, *ok = zero, false
	}
}

// maxFastDepth bounds nesting on the fast path; deeper input falls back.
const maxFastDepth = 200

type ykind uint8

const (
	yNull   ykind = iota // a plain null scalar (or nothing)
	yScalar              // any other scalar
	yMap
	ySeq
	yLazy // not parsed yet: see span
)

// ynode is one YAML node of the subset. A catalog file makes hundreds of
// thousands of them, so line and span are 32-bit (decodeYAMLFast leaves
// larger files to the reference decoder): 104 bytes a node instead of 136.
type ynode struct {
	kind  ykind
	plain bool // a scalar written without quotes (resolved by the core schema)
	line  int32
	str   string // scalar text (for yNull, the text as written)
	keys  []ykey
	vals  []ynode // mapping values, parallel to keys, or sequence items
	span  ynodeSpan
}

// ynodeSpan is a yspan as a node keeps it: where the node was written
// (for yLazy: where to parse it).
type ynodeSpan struct {
	set                               bool
	off, end, lineOff, line, col, own int32
}

func (s yspan) compact() ynodeSpan {
	return ynodeSpan{s.set, int32(s.off), int32(s.end), int32(s.lineOff), int32(s.line), int32(s.col), int32(s.owner)}
}

func (s ynodeSpan) wide() yspan {
	return yspan{set: s.set, off: int(s.off), end: int(s.end), lineOff: int(s.lineOff), line: int(s.line), col: int(s.col), owner: int(s.own)}
}

type ykey struct {
	s     string
	plain bool
}

// yspan is where a value sits in the file.
type yspan struct {
	set      bool
	off, end int // raw bytes of the value; off == end when it is empty
	lineOff  int // start of the line the value starts on (the key's line)
	line     int // that line's number
	col      int // column just after the "key:" or "- " owning the value
	owner    int // indentation of the collection holding the value
}

type yparser struct {
	path  string
	data  []byte
	off   int // start of the current line
	eol   int // end of the current line (index of '\n' or len(data))
	line  int // 1-based number of the current line
	depth int
	// Scratch stacks the collections being read collect their entries on,
	// so that each ends up in one exactly sized slice of a slab.
	kstack []ykey
	vstack []ynode
	// The collections' own entries, in slabs reused from document to
	// document (see newDocument).
	keys slab[ykey]
	vals slab[ynode]
	held *scratch // where the stacks and slabs go back to
}

// scratch is the stacks and slabs of one parser, reused across parsers.
type scratch struct {
	k    []ykey
	v    []ynode
	keys slab[ykey]
	vals slab[ynode]
}

var scratchPool = sync.Pool{New: func() any { return &scratch{k: make([]ykey, 0, 64), v: make([]ynode, 0, 256)} }}

func (p *yparser) getScratch() {
	s := scratchPool.Get().(*scratch)
	p.kstack, p.vstack = s.k[:0], s.v[:0]
	p.keys, p.vals = s.keys, s.vals
	p.held = s
}

// newDocument takes back the nodes of the document read before: call it
// only once nothing refers to them (its object is built).
func (p *yparser) newDocument() {
	p.keys.reset()
	p.vals.reset()
}

func (p *yparser) putScratch() { scratchPool.Put(p.release()) }

// release returns the parser's stacks emptied, with no pointer left in
// them for the pool to keep alive. collect clears what it pops, so only
// the entries still pushed (a bail mid-collection) need clearing: clearing
// the whole capacity cost a file's largest stack on every small value.
func (p *yparser) release() *scratch {
	clear(p.vstack)
	clear(p.kstack)
	p.newDocument()
	// Back into the scratch it came from: a fresh one for every small
	// property value converted alone was a megabyte a load.
	s := p.held
	*s = scratch{k: p.kstack[:0], v: p.vstack[:0], keys: p.keys, vals: p.vals}
	return s
}

// collect returns the entries pushed since kb and vb as slices of the
// document's slabs and pops them.
func (p *yparser) collect(kb, vb int) ([]ykey, []ynode) {
	keys := p.keys.take(p.kstack[kb:])
	vals := p.vals.take(p.vstack[vb:])
	clear(p.kstack[kb:])
	clear(p.vstack[vb:])
	p.kstack, p.vstack = p.kstack[:kb], p.vstack[:vb]
	return keys, vals
}

func (p *yparser) bail(format string, args ...any) {
	panic(errBail{fmt.Sprintf("line %d: ", p.line) + fmt.Sprintf(format, args...)})
}

func (p *yparser) setLine(off, line int) {
	p.off, p.line = off, line
	if i := bytes.IndexByte(p.data[off:], '\n'); i >= 0 {
		p.eol = off + i
	} else {
		p.eol = len(p.data)
	}
}

func (p *yparser) eof() bool    { return p.off >= len(p.data) }
func (p *yparser) text() []byte { return p.data[p.off:p.eol] }

// hasBreak reports whether the current line ends with a line break.
func (p *yparser) hasBreak() bool { return p.eol < len(p.data) }

func (p *yparser) next() {
	if p.eol >= len(p.data) {
		p.off, p.eol = len(p.data), len(p.data)
		return
	}
	p.setLine(p.eol+1, p.line+1)
}

func indentOf(t []byte) int {
	i := 0
	for i < len(t) && t[i] == ' ' {
		i++
	}
	return i
}

func skipSpaces(t []byte, i int) int {
	for i < len(t) && t[i] == ' ' {
		i++
	}
	return i
}

func isDocMarker(t []byte) bool {
	return len(t) >= 3 && (string(t[:3]) == "---" || string(t[:3]) == "...") && (len(t) == 3 || t[3] == ' ' || t[3] == '\t')
}

// isDash reports whether t has a block sequence entry indicator at i.
func isDash(t []byte, i int) bool {
	return i < len(t) && t[i] == '-' && (i+1 == len(t) || t[i+1] == ' ')
}

// skipBlank moves past blank and comment lines.
func (p *yparser) skipBlank() {
	for !p.eof() {
		t := p.text()
		i := indentOf(t)
		if i < len(t) {
			switch t[i] {
			case '#':
			case '\t':
				p.bail("tab in indentation")
			default:
				return
			}
		}
		p.next()
	}
}

// atEnd reports whether the cursor is at the end of the document.
func (p *yparser) atEnd() bool { return p.eof() || isDocMarker(p.text()) }

// fastEligible reports whether data is plain enough for the fast path:
// valid UTF-8 of printable characters, LF line ends, no byte order mark.
// It reads every byte of every file before the parser does, so it goes
// through whole lines, newlines included, 32 bytes at a time with one
// branch, and only a block holding something else (a tab, a non-ASCII
// character) is looked at eight bytes, then one character, at a time.
func fastEligible(data []byte) bool {
	for i := 0; i < len(data); {
		if i+32 <= len(data) {
			b := data[i : i+32 : i+32]
			if notPlain8(binary.LittleEndian.Uint64(b))|notPlain8(binary.LittleEndian.Uint64(b[8:]))|
				notPlain8(binary.LittleEndian.Uint64(b[16:]))|notPlain8(binary.LittleEndian.Uint64(b[24:])) == 0 {
				i += 32
				continue
			}
		}
		if i+8 <= len(data) && notPlain8(binary.LittleEndian.Uint64(data[i:])) == 0 {
			i += 8
			continue
		}
		c := data[i]
		if c < utf8.RuneSelf {
			if (c < 0x20 && c != '\n' && c != '\t') || c == 0x7f {
				return false
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			return false
		case r >= 0xA0 && r <= 0xD7FF && r != 0x2028 && r != 0x2029:
		case r >= 0xE000 && r <= 0xFFFD && r != 0xFEFF:
		case r >= 0x10000 && r <= 0x10FFFF:
		default:
			return false
		}
		i += size
	}
	return true
}

// notPlain8 is zero when the eight bytes of x are all in 0x20..0x7e or
// '\n', in eight operations. x+1 sets a byte's high bit for 0x7f, and x
// already has it for anything above. XOR with '\n' turns a line end into 0
// and keeps the other control bytes in 1..0x1f and the rest above: adding
// 0x7f sets the high bit of everything but 0, adding 0x60 of everything
// from 0x20, so "set by the one, not the other" is a control byte. As long
// as every byte is below 0x80 no sum carries into its neighbour; when one
// is not, the lowest such byte's own high bit answers already.
func notPlain8(x uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	z := x ^ (ones * '\n')
	return (x | (x + ones) | ((z + ones*0x7f) &^ (z + ones*0x60))) & highs
}

// decodeYAMLFast decodes data on the fast path; ok is false when the file
// must go through the reference decoder instead.
func decodeYAMLFast(path string, data []byte) (c *Config, ok bool) {
	if len(data) > math.MaxInt32 || !fastEligible(data) { // ynode offsets are 32-bit
		return nil, false
	}
	defer fallBack(&c, &ok)
	p := &yparser{path: path, data: data}
	p.getScratch()
	defer p.putScratch()
	p.setLine(0, 1)
	c = &Config{}
	for {
		p.skipBlank()
		if p.eof() {
			break
		}
		t := p.text()
		if isDocMarker(t) {
			if i := skipSpaces(t, 3); i < len(t) && t[i] != '#' {
				p.bail("content after a document marker")
			}
			p.next()
			continue
		}
		if t[0] == '%' {
			p.bail("directive")
		}
		ind := indentOf(t)
		if !p.isKeyLine(t, ind) {
			p.bail("document is not a block mapping")
		}
		start := p.off
		n := p.skimMap(ind, ind)
		n.span = ynodeSpan{set: true, off: int32(start), end: n.span.end}
		p.skipBlank()
		if !p.atEnd() {
			p.bail("content after the document's mapping")
		}
		off, line := p.off, p.line
		if err := p.object(c, &n); err != nil {
			p.bail("%v", err)
		}
		p.newDocument()      // what was built holds no node
		p.setLine(off, line) // values parsed on demand moved the cursor
	}
	if err := fastProperties(c); err != nil {
		return nil, false
	}
	return c, true
}

// object builds the catalog object of one document.
func (p *yparser) object(c *Config, n *ynode) error {
	f := yfields{p: p, n: n}
	schema, err := f.str("schema")
	if err != nil {
		return err
	}
	if schema == "" {
		return fmt.Errorf("no schema")
	}
	return build(c, object{pos: f.pos(), schema: schema, fields: f})
}

// isKeyLine reports whether a simple mapping key starts at t[i].
func (p *yparser) isKeyLine(t []byte, i int) bool {
	if i >= len(t) {
		return false
	}
	switch t[i] {
	case '"', '\'':
		j := closeQuote(t, i)
		if j < 0 {
			return false
		}
		j = skipSpaces(t, j)
		return j < len(t) && t[j] == ':' && (j+1 == len(t) || t[j+1] == ' ')
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', '\t':
		return false
	}
	_, key := scanPlain(t, i)
	return key
}

// parseKey reads the simple key at t[i] and returns it with the column
// just after its ':'.
func (p *yparser) parseKey(t []byte, i int) (ykey, int) {
	var k ykey
	var j int
	switch t[i] {
	case '"', '\'':
		j = closeQuote(t, i)
		if j < 0 {
			p.bail("multi-line key")
		}
		k.s = p.quotedOnLine(t, i, j)
		j = skipSpaces(t, j)
		if j >= len(t) || t[j] != ':' || (j+1 < len(t) && t[j+1] != ' ') {
			p.bail("expected ':' after a quoted key")
		}
		j++
	case '-', '?', ':', ',', '[', ']', '{', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', '\t':
		p.bail("unsupported key")
	default:
		end, key := scanPlain(t, i)
		if !key {
			p.bail("expected a key")
		}
		k.s, k.plain = internKey(bytes.TrimRight(t[i:end-1], " \t")), true
		j = end
	}
	if j-i > 1000 {
		p.bail("key too long")
	}
	return k, j
}

// skimMap reads the block mapping whose first key is at column col of the
// current line and whose keys sit at indentation m, recording each value
// as a span to parse later.
func (p *yparser) skimMap(m, col int) ynode {
	n := ynode{kind: yMap, line: int32(p.line)}
	kb, vb := len(p.kstack), len(p.vstack)
	for first := true; ; first = false {
		if !first {
			p.skipBlank()
			if p.atEnd() {
				break
			}
			ind := indentOf(p.text())
			if ind < m {
				break
			}
			if ind > m {
				p.bail("bad indentation")
			}
			col = m
		}
		t := p.text()
		if t[col] == '-' && isDash(t, col) {
			if first {
				p.bail("sequence where a key was expected")
			}
			break // a sequence entry of the parent: the caller decides
		}
		k, vcol := p.parseKey(t, col)
		sp := p.skipValue(m, vcol, true)
		p.kstack = append(p.kstack, k)
		p.vstack = append(p.vstack, ynode{kind: yLazy, line: int32(sp.line), span: sp.compact()})
		n.span.end = max(n.span.end, int32(sp.end), int32(sp.lineOff+vcol))
	}
	n.keys, n.vals = p.collect(kb, vb)
	p.noDuplicateKeys(n.keys)
	return n
}

// noDuplicateKeys sends a mapping with a key written twice to the
// reference decoder, which keeps the last value, as opm does, and says so
// in a warning with both lines.
func (p *yparser) noDuplicateKeys(keys []ykey) {
	if len(keys) > 32 {
		seen := make(map[string]bool, len(keys))
		for _, k := range keys {
			if seen[k.s] {
				p.bail("duplicate key %q", k.s)
			}
			seen[k.s] = true
		}
		return
	}
	for i := 1; i < len(keys); i++ {
		for _, k := range keys[:i] {
			if k.s == keys[i].s {
				p.bail("duplicate key %q", k.s)
			}
		}
	}
}

// parseSeq reads the block sequence whose first "-" is at column col of the
// current line; its entries sit at indentation s.
func (p *yparser) parseSeq(s, col int) ynode {
	p.enter()
	defer p.leave()
	n := ynode{kind: ySeq, line: int32(p.line)}
	kb, vb := len(p.kstack), len(p.vstack)
	for {
		t := p.text()
		i := col + 1
		if i < len(t) && t[i] == '\t' {
			p.bail("tab after '-'")
		}
		i = skipSpaces(t, i)
		var item ynode
		switch {
		case i >= len(t) || t[i] == '#':
			line := p.line
			p.next()
			p.skipBlank()
			if p.atEnd() || indentOf(p.text()) <= s {
				item = ynode{kind: yNull, line: int32(line), plain: true}
			} else {
				item = p.parseBlockNode(s)
			}
		case isDash(t, i):
			item = p.parseSeq(i, i)
		case p.isKeyLine(t, i):
			item = p.skimMap(i, i)
		default:
			item = p.parseInline(t, i, s)
		}
		p.vstack = append(p.vstack, item)
		p.skipBlank()
		if p.atEnd() {
			break
		}
		t = p.text()
		ind := indentOf(t)
		if ind < s || (ind == s && !isDash(t, ind)) {
			break
		}
		if ind > s {
			p.bail("bad indentation in a sequence")
		}
		col = ind
	}
	_, n.vals = p.collect(kb, vb)
	return n
}

func (p *yparser) enter() {
	p.depth++
	if p.depth > maxFastDepth {
		p.bail("nested too deep")
	}
}

func (p *yparser) leave() { p.depth-- }

// parseBlockNode parses the node starting on the current line (a content
// line) inside a collection at indentation owner.
func (p *yparser) parseBlockNode(owner int) ynode {
	t := p.text()
	ind := indentOf(t)
	switch {
	case isDash(t, ind):
		return p.parseSeq(ind, ind)
	case p.isKeyLine(t, ind):
		return p.skimMap(ind, ind)
	}
	return p.parseInline(t, ind, owner)
}

// parseSpan parses a value recorded by skipValue.
func (p *yparser) parseSpan(sp yspan) ynode {
	p.setLine(sp.lineOff, sp.line)
	t := p.text()
	i := skipSpaces(t, sp.col)
	var n ynode
	switch {
	case sp.off == sp.end:
		n = ynode{kind: yNull, plain: true, line: int32(sp.line)}
		p.next()
	case i < len(t) && t[i] != '#':
		n = p.parseInline(t, i, sp.owner)
	default:
		p.next()
		p.skipBlank()
		n = p.parseBlockNode(sp.owner)
	}
	p.skipBlank()
	if !p.eof() && p.off < sp.end {
		p.bail("value not fully parsed")
	}
	n.span = sp.compact()
	return n
}

// internKey returns the keys catalogs use without allocating.
func internKey(b []byte) string {
	switch string(b) {
	case "schema":
		return "schema"
	case "name":
		return "name"
	case "package":
		return "package"
	case "image":
		return "image"
	case "type":
		return "type"
	case "value":
		return "value"
	case "properties":
		return "properties"
	case "relatedImages":
		return "relatedImages"
	case "entries":
		return "entries"
	case "replaces":
		return "replaces"
	case "skips":
		return "skips"
	case "skipRange":
		return "skipRange"
	case "defaultChannel":
		return "defaultChannel"
	case "description":
		return "description"
	case "icon":
		return "icon"
	case "group":
		return "group"
	case "kind":
		return "kind"
	case "version":
		return "version"
	case "packageName":
		return "packageName"
	case "versionRange":
		return "versionRange"
	case "reference":
		return "reference"
	case "message":
		return "message"
	}
	return string(b)
}
