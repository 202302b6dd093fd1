package fbc

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// parseInline parses the node starting at t[i] on the current line (a
// scalar, a one-line flow collection or a block scalar) inside a collection
// at indentation owner. The cursor ends on the line after the node.
func (p *yparser) parseInline(t []byte, i, owner int) ynode {
	line := p.line
	switch c := t[i]; c {
	case '"', '\'':
		s := p.parseQuoted(t, i)
		return ynode{kind: yScalar, line: int32(line), str: s}
	case '[', '{':
		j := closeFlow(t, i)
		if j < 0 {
			p.bail("multi-line flow collection")
		}
		fp := flowParser{p: p, t: t[:j], i: i}
		n := fp.node()
		if fp.i != j {
			p.bail("bad flow collection")
		}
		n.span = ynodeSpan{set: true, off: int32(p.off + i), end: int32(p.off + j)}
		if k := skipSpaces(t, j); k < len(t) && !(t[k] == '#' && k > j) {
			p.bail("text after a flow collection")
		}
		p.next()
		return n
	case '|', '>':
		return ynode{kind: yScalar, line: int32(line), str: p.parseBlockScalar(t, i, owner)}
	case '-', '?', ':':
		if i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t' {
			p.bail("indicator %q", c)
		}
	case ',', ']', '}', '#', '&', '*', '!', '%', '@', '`', '\t':
		p.bail("unsupported %q", c)
	}
	return p.parsePlain(t, i, owner)
}

// parsePlain parses a plain scalar in block context, folding continuation
// lines indented past owner.
func (p *yparser) parsePlain(t []byte, i, owner int) ynode {
	n := ynode{kind: yScalar, plain: true, line: int32(p.line)}
	end, key := scanPlain(t, i)
	if key {
		p.bail("unexpected ': '")
	}
	first := bytes.TrimRight(t[i:end], " \t")
	p.next()
	if end < len(t) { // a comment ends the scalar
		n.str = string(first)
		return n.resolveNull()
	}
	var b []byte
	blank := 0
	for !p.eof() {
		t := p.text()
		ind := indentOf(t)
		if ind == len(t) {
			if !p.hasBreak() {
				break
			}
			blank++
			p.next()
			continue
		}
		if ind <= owner || t[ind] == '#' || isDocMarker(t) {
			break
		}
		if t[ind] == '\t' {
			p.bail("tab in indentation")
		}
		end, key := scanPlain(t, ind)
		if key {
			p.bail("unexpected ': '")
		}
		if b == nil {
			b = append(b, first...)
		}
		if blank == 0 {
			b = append(b, ' ')
		}
		for ; blank > 0; blank-- {
			b = append(b, '\n')
		}
		b = append(b, bytes.TrimRight(t[ind:end], " \t")...)
		p.next()
		if end < len(t) {
			break
		}
	}
	if b == nil {
		n.str = string(first)
	} else {
		n.str = string(b)
	}
	return n.resolveNull()
}

func (n ynode) resolveNull() ynode {
	switch n.str {
	case "", "~", "null", "Null", "NULL":
		n.kind = yNull
	}
	return n
}

// quotedOnLine returns the value of the quoted scalar t[i:j] (one line).
func (p *yparser) quotedOnLine(t []byte, i, j int) string {
	if t[i] == '\'' {
		s := t[i+1 : j-1]
		if bytes.IndexByte(s, '\'') < 0 {
			return string(s)
		}
		return strings.ReplaceAll(string(s), "''", "'")
	}
	s := t[i+1 : j-1]
	if bytes.IndexByte(s, '\\') < 0 {
		return string(s)
	}
	var b []byte
	for k := 0; k < len(s); k++ {
		if s[k] != '\\' {
			b = append(b, s[k])
			continue
		}
		var n int
		b, n = p.escape(b, s[k+1:])
		k += n
	}
	return string(b)
}

// escape appends the value of the escape sequence after a backslash and
// returns how many bytes it used.
func (p *yparser) escape(b, s []byte) ([]byte, int) {
	if len(s) == 0 {
		p.bail("bad escape")
	}
	var size int
	switch s[0] {
	case '0':
		return append(b, 0), 1
	case 'a':
		return append(b, '\a'), 1
	case 'b':
		return append(b, '\b'), 1
	case 't', '\t':
		return append(b, '\t'), 1
	case 'n':
		return append(b, '\n'), 1
	case 'v':
		return append(b, '\v'), 1
	case 'f':
		return append(b, '\f'), 1
	case 'r':
		return append(b, '\r'), 1
	case 'e':
		return append(b, 0x1b), 1
	case ' ', '"', '/', '\\':
		return append(b, s[0]), 1
	case 'N':
		return utf8.AppendRune(b, 0x85), 1
	case '_':
		return utf8.AppendRune(b, 0xA0), 1
	case 'L':
		return utf8.AppendRune(b, 0x2028), 1
	case 'P':
		return utf8.AppendRune(b, 0x2029), 1
	case 'x':
		size = 2
	case 'u':
		size = 4
	case 'U':
		size = 8
	default:
		p.bail("bad escape")
	}
	if len(s) < 1+size {
		p.bail("bad escape")
	}
	v, err := strconv.ParseUint(string(s[1:1+size]), 16, 32)
	if err != nil || (v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF {
		p.bail("bad escape")
	}
	return utf8.AppendRune(b, rune(v)), 1 + size
}

// parseQuoted parses a quoted scalar opening at t[i], possibly over several
// lines, folding line breaks the way libyaml does. The rest of its last
// line must be blank or a comment.
func (p *yparser) parseQuoted(t []byte, i int) string {
	q := t[i]
	if j := closeQuote(t, i); j >= 0 {
		s := p.quotedOnLine(t, i, j)
		p.endOfNode(t, j)
		return s
	}
	var b []byte
	j := i + 1
	for {
		// Consume the line's characters up to a break or the closing quote.
		for j < len(t) {
			c := t[j]
			switch {
			case c == q && q == '\'' && j+1 < len(t) && t[j+1] == '\'':
				b = append(b, '\'')
				j += 2
			case c == q:
				p.endOfNode(t, j+1)
				return string(b)
			case c == '\\' && q == '"' && j+1 == len(t):
				// An escaped line break: no folding, and the next lines'
				// leading blanks are dropped.
				j = p.nextQuotedLine(&b, true)
				t = p.text()
				continue
			case c == '\\' && q == '"':
				var n int
				b, n = p.escape(b, t[j+1:])
				j += 1 + n
			case c == ' ' || c == '\t':
				k := j
				for k < len(t) && (t[k] == ' ' || t[k] == '\t') {
					k++
				}
				if k < len(t) {
					b = append(b, t[j:k]...)
				}
				j = k
			default:
				b = append(b, c)
				j++
			}
		}
		j = p.nextQuotedLine(&b, false)
		t = p.text()
	}
}

// nextQuotedLine moves to the next non-blank line of a multi-line quoted
// scalar, appending the folded line breaks, and returns the column of its
// first non-blank character.
func (p *yparser) nextQuotedLine(b *[]byte, escaped bool) int {
	breaks := 0
	for {
		if !p.hasBreak() {
			p.bail("unterminated quoted scalar")
		}
		p.next()
		t := p.text()
		if isDocMarker(t) {
			p.bail("document marker inside a quoted scalar")
		}
		j := 0
		for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
			j++
		}
		if j < len(t) {
			switch {
			case escaped:
			case breaks == 0:
				*b = append(*b, ' ')
			}
			for ; breaks > 0; breaks-- {
				*b = append(*b, '\n')
			}
			return j
		}
		breaks++
	}
}

// endOfNode checks that only blanks or a comment follow t[j] on the line and
// moves to the next line.
func (p *yparser) endOfNode(t []byte, j int) {
	k := skipSpaces(t, j)
	if k < len(t) && !(t[k] == '#' && k > j) {
		p.bail("text after a scalar")
	}
	p.next()
}

// parseBlockScalar parses a literal or folded block scalar whose header is
// at t[i], as libyaml's yaml_parser_scan_block_scalar does.
func (p *yparser) parseBlockScalar(t []byte, i, owner int) string {
	literal := t[i] == '|'
	chomp, incr := p.blockHeader(t, i, false)
	indent := 0
	if incr > 0 {
		indent = max(owner, 0) + incr
		if owner < 0 {
			indent = incr
		}
	}
	p.next()
	var b []byte
	var trailing int // line breaks after the last content line
	leadingBreak := false
	leadingBlank := false
	col := 0
	breaks := func() {
		maxIndent := 0
		for !p.eof() {
			t := p.text()
			col = 0
			for (indent == 0 || col < indent) && col < len(t) && t[col] == ' ' {
				col++
			}
			maxIndent = max(maxIndent, col)
			if (indent == 0 || col < indent) && col < len(t) && t[col] == '\t' {
				p.bail("tab in a block scalar's indentation")
			}
			if col < len(t) || !p.hasBreak() {
				break
			}
			trailing++
			p.next()
		}
		if indent == 0 {
			indent = max(maxIndent, owner+1, 1)
		}
	}
	breaks()
	for !p.eof() && col == indent {
		t := p.text()
		if col >= len(t) {
			break // a last line of only spaces, with no line break
		}
		trailingBlank := t[col] == ' ' || t[col] == '\t'
		if !literal && leadingBreak && !leadingBlank && !trailingBlank {
			if trailing == 0 {
				b = append(b, ' ')
			}
		} else if leadingBreak {
			b = append(b, '\n')
		}
		for ; trailing > 0; trailing-- {
			b = append(b, '\n')
		}
		leadingBreak = false
		leadingBlank = trailingBlank
		b = append(b, t[col:]...)
		if p.hasBreak() {
			leadingBreak = true
		}
		p.next()
		breaks()
	}
	if chomp != '-' && leadingBreak {
		b = append(b, '\n')
	}
	return string(b)
}

// flowParser parses a flow collection that sits on one line.
type flowParser struct {
	p *yparser
	t []byte
	i int
}

func (f *flowParser) spaces() {
	for f.i < len(f.t) && (f.t[f.i] == ' ' || f.t[f.i] == '\t') {
		f.i++
	}
}

func (f *flowParser) node() ynode {
	f.p.enter()
	defer f.p.leave()
	f.spaces()
	if f.i >= len(f.t) {
		f.p.bail("bad flow collection")
	}
	line := f.p.line
	switch f.t[f.i] {
	case '[':
		n := ynode{kind: ySeq, line: int32(line)}
		f.i++
		for {
			f.spaces()
			if f.i < len(f.t) && f.t[f.i] == ']' {
				f.i++
				return n
			}
			n.vals = append(n.vals, f.scalarOrCollection())
			f.spaces()
			if f.i < len(f.t) && f.t[f.i] == ',' {
				f.i++
				continue
			}
			if f.i < len(f.t) && f.t[f.i] == ']' {
				f.i++
				return n
			}
			f.p.bail("bad flow sequence")
		}
	case '{':
		n := ynode{kind: yMap, line: int32(line)}
		f.i++
		for {
			f.spaces()
			if f.i < len(f.t) && f.t[f.i] == '}' {
				f.i++
				return n
			}
			k := f.scalarOrCollection()
			if k.kind == yMap || k.kind == ySeq || k.kind == yNull {
				f.p.bail("unsupported flow key")
			}
			f.spaces()
			if f.i >= len(f.t) || f.t[f.i] != ':' {
				f.p.bail("flow mapping entry without ':'")
			}
			f.i++
			f.spaces()
			v := ynode{kind: yNull, plain: true, line: int32(line)}
			if f.i < len(f.t) && f.t[f.i] != ',' && f.t[f.i] != '}' {
				v = f.scalarOrCollection()
			}
			n.keys = append(n.keys, ykey{s: k.str, plain: k.plain})
			n.vals = append(n.vals, v)
			f.spaces()
			if f.i < len(f.t) && f.t[f.i] == ',' {
				f.i++
				continue
			}
			if f.i < len(f.t) && f.t[f.i] == '}' {
				f.i++
				f.p.noDuplicateKeys(n.keys)
				return n
			}
			f.p.bail("bad flow mapping")
		}
	}
	f.p.bail("bad flow collection")
	return ynode{}
}

func (f *flowParser) scalarOrCollection() ynode {
	start := f.i
	line := f.p.line
	var n ynode
	switch c := f.t[f.i]; c {
	case '[', '{':
		n = f.node()
	case '"', '\'':
		j := closeQuote(f.t, f.i)
		if j < 0 {
			f.p.bail("bad quoted scalar")
		}
		n = ynode{kind: yScalar, line: int32(line), str: f.p.quotedOnLine(f.t, f.i, j)}
		f.i = j
	case ',', ']', '}', '#', '&', '*', '!', '|', '>', '%', '@', '`', '?', '-', ':':
		f.p.bail("unsupported in flow %q", c)
	default:
		j := f.i
	scan:
		for j < len(f.t) {
			switch f.t[j] {
			case ',', '[', ']', '{', '}':
				break scan
			case ':':
				if j+1 == len(f.t) || bytes.IndexByte([]byte(" \t,[]{}"), f.t[j+1]) >= 0 {
					break scan
				}
			case '#':
				if f.t[j-1] == ' ' || f.t[j-1] == '\t' {
					f.p.bail("comment in flow")
				}
			}
			j++
		}
		n = ynode{kind: yScalar, plain: true, line: int32(line), str: string(bytes.TrimRight(f.t[f.i:j], " \t"))}
		n = n.resolveNull()
		f.i = j
	}
	n.span = ynodeSpan{set: true, off: int32(f.p.off + start), end: int32(f.p.off + f.i)}
	return n
}
