package fbc

import "bytes"

// Skipping a value without parsing it: the line-by-line scanner that
// finds where a skimmed value ends, following quoted, block and flow
// scalars so that text continuing further left is not taken for a key.

// Span states between lines.
const (
	stNone  = iota
	stQuote // inside a multi-line quoted scalar
	stBlock // inside a block scalar: lines indented past pcol are content
	stPlain // after a plain scalar: lines indented past pcol continue it
)

type spanState struct {
	mode uint8
	q    byte
	pcol int
}

// skipValue finds the extent of the value that starts at column col of the
// current line (just after "key:" or "-") and belongs to a collection at
// indentation owner. It tokenizes only as much as needed to find quoted
// scalars and block scalars, which may hold lines that look like structure.
// The cursor ends on the first line after the value.
func (p *yparser) skipValue(owner, col int, seqOK bool) yspan {
	t := p.text()
	sp := yspan{set: true, owner: owner, lineOff: p.off, line: p.line, col: col, off: -1}
	if col < len(t) && t[col] == '\t' {
		p.bail("tab after ':'")
	}
	i := skipSpaces(t, col)
	var st spanState
	if i < len(t) && t[i] != '#' {
		sp.off = p.off + i
		st = p.tokenize(t, i, owner, true)
		sp.end = p.eol
	}
	p.next()
	seqAtOwner := false
	for !p.eof() {
		t := p.text()
		ind := indentOf(t)
		switch st.mode {
		case stQuote:
			st = p.continueQuote(t, st)
			sp.end = p.eol
			p.next()
			continue
		case stBlock:
			if ind == len(t) || ind > st.pcol {
				if ind < len(t) {
					sp.end = p.eol
				}
				p.next()
				continue
			}
			st.mode = stNone
		case stPlain:
			if ind == len(t) || (ind > st.pcol && t[ind] != '#' && t[ind] != '\t') {
				if ind < len(t) {
					sp.end = p.eol
				}
				p.next()
				continue
			}
			st.mode = stNone
		}
		if ind == len(t) || t[ind] == '#' {
			p.next()
			continue
		}
		if t[ind] == '\t' {
			p.bail("tab in indentation")
		}
		switch {
		case ind > owner && !seqAtOwner:
		case ind == owner && isDash(t, ind) && (seqAtOwner || (seqOK && sp.off < 0)):
			seqAtOwner = true
		case ind > owner && seqAtOwner:
		default:
			goto done
		}
		if sp.off < 0 {
			sp.off = p.off
		}
		st = p.tokenize(t, ind, ind-1, false)
		sp.end = p.eol
		p.next()
	}
done:
	if st.mode == stQuote {
		p.bail("unterminated quoted scalar")
	}
	if sp.off < 0 {
		sp.off, sp.end = sp.lineOff+col, sp.lineOff+col
	} else if sp.end < len(p.data) {
		sp.end++ // the line break: a block scalar's value may end with it
	}
	return sp
}

// tokenize scans one line of a skipped value from t[i] and returns the
// state the next line starts in. owner is the indentation of the
// collection holding the node at t[i].
func (p *yparser) tokenize(t []byte, i, owner int, head bool) spanState {
	for {
		i = skipSpaces(t, i)
		if i >= len(t) {
			return spanState{}
		}
		switch c := t[i]; c {
		case '#':
			return spanState{}
		case '-':
			if i+1 == len(t) || t[i+1] == ' ' {
				owner = i
				i++
				head = false
				continue
			}
			if t[i+1] == '\t' {
				p.bail("tab after '-'")
			}
		case '?', ':':
			if i+1 == len(t) || t[i+1] == ' ' || t[i+1] == '\t' {
				p.bail("explicit key")
			}
		case '"', '\'':
			j := closeQuote(t, i)
			if j < 0 {
				return spanState{mode: stQuote, q: c}
			}
			if k, key := p.afterNode(t, j); key {
				owner, i, head = i, k, false
				continue
			}
			return spanState{}
		case '[', '{':
			j := closeFlow(t, i)
			if j < 0 {
				p.bail("multi-line flow collection")
			}
			if k, key := p.afterNode(t, j); key {
				owner, i, head = i, k, false
				continue
			}
			return spanState{}
		case '|', '>':
			p.blockHeader(t, i, head)
			return spanState{mode: stBlock, pcol: owner}
		case '!':
			for i < len(t) && t[i] != ' ' {
				i++
			}
			continue
		case '&', '*', '%', '@', '`', '\t':
			p.bail("unsupported %q", c)
		}
		end, key := scanPlain(t, i)
		if key {
			owner, i, head = i, end, false
			continue
		}
		return spanState{mode: stPlain, pcol: owner}
	}
}

// afterNode looks past a quoted scalar or flow collection ending at j: a
// ':' makes it a key (the column after the ':' is returned).
func (p *yparser) afterNode(t []byte, j int) (int, bool) {
	k := skipSpaces(t, j)
	switch {
	case k == len(t):
		return k, false
	case t[k] == '#' && k > j:
		return k, false
	case t[k] == ':' && (k+1 == len(t) || t[k+1] == ' '):
		return k + 1, true
	}
	p.bail("unexpected text after a node")
	return 0, false
}

// continueQuote scans a line inside a multi-line quoted scalar.
func (p *yparser) continueQuote(t []byte, st spanState) spanState {
	if isDocMarker(t) {
		p.bail("document marker inside a quoted scalar")
	}
	j := closeQuoteFrom(t, 0, st.q)
	if j < 0 {
		return st
	}
	if _, key := p.afterNode(t, j); key {
		p.bail("multi-line key")
	}
	return spanState{}
}

// blockHeader checks a block scalar header at t[i] and returns its chomping
// ('-', '+' or 0) and explicit indentation (0 when auto-detected).
func (p *yparser) blockHeader(t []byte, i int, head bool) (chomp byte, incr int) {
	j := i + 1
	for range 2 {
		if j >= len(t) {
			break
		}
		switch c := t[j]; {
		case (c == '-' || c == '+') && chomp == 0:
			chomp = c
		case c >= '1' && c <= '9' && incr == 0:
			incr = int(c - '0')
		default:
			goto rest
		}
		j++
	}
rest:
	k := skipSpaces(t, j)
	if k < len(t) && !(t[k] == '#' && k > j) {
		p.bail("bad block scalar header")
	}
	if chomp == '+' {
		p.bail("keep-chomped block scalar")
	}
	if incr > 0 && head {
		p.bail("indentation indicator on a value's first line")
	}
	return chomp, incr
}

// scanPlain scans a plain scalar in block context from t[i]. If a ": "
// follows on the line, it is a key and end is just after the ':';
// otherwise end is where the scalar's line ends (before a comment).
func scanPlain(t []byte, i int) (end int, key bool) {
	colon := indexFrom(t, i, ':')
	for colon >= 0 && colon+1 < len(t) && t[colon+1] != ' ' && t[colon+1] != '\t' {
		colon = indexFrom(t, colon+1, ':')
	}
	hash := indexFrom(t, i+1, '#')
	for hash >= 0 && t[hash-1] != ' ' && t[hash-1] != '\t' {
		hash = indexFrom(t, hash+1, '#')
	}
	if colon >= 0 && (hash < 0 || colon < hash) {
		return colon + 1, true
	}
	if hash >= 0 {
		return hash, false
	}
	return len(t), false
}

func indexFrom(t []byte, i int, c byte) int {
	if i >= len(t) {
		return -1
	}
	if j := bytes.IndexByte(t[i:], c); j >= 0 {
		return i + j
	}
	return -1
}

// closeQuote returns the index just after the quoted scalar opening at t[i],
// or -1 when it does not close on this line.
func closeQuote(t []byte, i int) int { return closeQuoteFrom(t, i+1, t[i]) }

func closeQuoteFrom(t []byte, j int, q byte) int {
	start := j
	for {
		k := indexFrom(t, j, q)
		if k < 0 {
			return -1
		}
		if q == '\'' {
			if k+1 < len(t) && t[k+1] == '\'' {
				j = k + 2
				continue
			}
			return k + 1
		}
		n := 0
		for b := k - 1; b >= start && t[b] == '\\'; b-- {
			n++
		}
		if n%2 == 1 {
			j = k + 1
			continue
		}
		return k + 1
	}
}

// closeFlow returns the index just after the flow collection opening at
// t[i], or -1 when it does not close on this line or holds what the fast
// path leaves to the reference decoder.
func closeFlow(t []byte, i int) int {
	depth := 0
	for j := i; j < len(t); j++ {
		switch c := t[j]; c {
		case '[', '{':
			depth++
		case ']', '}':
			depth--
			if depth == 0 {
				return j + 1
			}
		case '"', '\'':
			if j == i || bytes.IndexByte([]byte(" \t[{,:"), t[j-1]) >= 0 {
				k := closeQuote(t, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			}
		case '#':
			if t[j-1] == ' ' || t[j-1] == '\t' {
				return -1
			}
		case '&', '*', '!', '?':
			if bytes.IndexByte([]byte(" \t[{,"), t[j-1]) >= 0 {
				return -1 // anchors, aliases, tags, explicit keys: not ours
			}
		}
	}
	return -1
}
