package main

import (
	"fmt"
	"io"
	"os"

	"golang.org/x/term"
)

// progress tells a person at a terminal what long work is under way, on
// w (standard error), and returns the function that clears the line when
// the work ends. When w is not a terminal (CI, a pipe, a log file) it
// writes nothing: a log has no use for a line that only says "wait".
func progress(w io.Writer, format string, args ...any) (done func()) {
	if !isTerminal(w) {
		return func() {}
	}
	fmt.Fprintf(w, "\r\033[K"+format+" …", args...)
	return func() { fmt.Fprint(w, "\r\033[K") }
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}
