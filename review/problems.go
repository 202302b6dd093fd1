package review

import (
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/olmops/olmops/api/v1alpha1"
	"github.com/olmops/olmops/catalog/fbc"
	"github.com/olmops/olmops/subscription"
)

// problemsOf flattens an error from loading files into problems with
// positions; one without a position points at file.
func problemsOf(source, file string, err error) []Problem {
	var out []Problem
	var walk func(error)
	walk = func(err error) {
		if err == nil {
			return
		}
		var se *subscription.Error
		var ve *v1alpha1.Error
		var fe *fbc.Error
		switch {
		case errors.As(err, &se) && error(se) == err:
			out = append(out, Problem{Source: source, Pos: posOf(se.Pos), Message: se.Msg})
		case errors.As(err, &ve) && error(ve) == err:
			out = append(out, Problem{Source: source, Pos: posOf(ve.Pos), Message: ve.Msg})
		case errors.As(err, &fe) && error(fe) == err:
			out = append(out, Problem{Source: source, Pos: posOf(fe.Pos), Message: strings.TrimPrefix(fe.Error(), fe.Pos.String()+": ")})
		default:
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				for _, e := range j.Unwrap() {
					walk(e)
				}
				return
			}
			out = append(out, located(source, file, err.Error()))
		}
	}
	walk(err)
	return out
}

// leadingPos reads the "path:line: " an error message starts with.
var leadingPos = regexp.MustCompile(`^([^\s:]+):(\d+): `)

// located turns a message into a problem, at the position it starts with
// if it has one, else at file.
func located(source, file, msg string) Problem {
	p := Problem{Source: source, Pos: Pos{File: file}, Message: msg}
	if m := leadingPos.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[2])
		p.Pos, p.Message = Pos{File: m[1], Line: line}, msg[len(m[0]):]
	} else if i := strings.Index(msg, ": "); i > 0 && strings.TrimSpace(msg[:i]) == file {
		p.Message = msg[i+2:]
	}
	return p
}

// lineRefs finds "file:line" mentions inside messages.
var lineRefs = regexp.MustCompile(`([\w./-]+\.(?:ya?ml|json)):(\d+)`)

// firstPos is the first file and line a message mentions.
func firstPos(msg string) Pos {
	m := lineRefs.FindStringSubmatch(msg)
	if m == nil {
		return Pos{}
	}
	line, _ := strconv.Atoi(m[2])
	return Pos{File: m[1], Line: line}
}

// identity is what a problem is, wherever its line went: what it is about
// and its message with line numbers taken out. Problems about no package
// are told apart by their file.
func (p Problem) identity() string {
	msg := lineRefs.ReplaceAllString(p.Message, "$1")
	where := p.Package + "\x00" + p.Channel + "\x00" + p.Bundle
	if p.Package == "" {
		where = p.Pos.File
	}
	return p.Source + "\x00" + where + "\x00" + msg
}

// matchProblems marks the head's problems New or Present and adds the
// base's problems the head no longer has as Fixed, except those of
// sources the head could not read, which may well be there still. A
// problem the head has twice and the base once is new the second time.
func matchProblems(base, head []Problem, unread func(source string) bool) []Problem {
	left := map[string]int{}
	for _, p := range base {
		left[p.identity()]++
	}
	var fresh, present []Problem
	for _, p := range head {
		id := p.identity()
		if left[id] > 0 {
			left[id]--
			p.Status = Present
			present = append(present, p)
			continue
		}
		p.Status = New
		fresh = append(fresh, p)
	}
	var fixed []Problem
	for _, p := range base {
		id := p.identity()
		if left[id] > 0 && !unread(p.Source) {
			left[id]--
			p.Status = Fixed
			fixed = append(fixed, p)
		}
	}
	return append(append(fresh, present...), fixed...)
}
