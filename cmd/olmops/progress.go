package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/olmops/olmops/plan"
)

// progress tells a person at a terminal what long work is under way, on
// w (standard error), and returns the function that clears the line when
// the work ends. When w is not a terminal (CI, a pipe, a log file) it
// writes nothing: a log has no use for a line that only says "wait".
func progress(w io.Writer, format string, args ...any) (done func()) {
	l := newStatusLine(w)
	l.show(format, args...)
	return l.clear
}

// statusLine is the one line of progress a command keeps on a terminal,
// rewritten in place as the work moves on. Lines that stay (events,
// warnings) go through println, which clears the progress first so the
// two never share a line. Safe for concurrent use: plans pull bundles
// and appliers report hops from several goroutines.
type statusLine struct {
	mu  sync.Mutex
	w   io.Writer
	tty bool // false: show and clear write nothing
	// width is the terminal's, 0 when unknown: a longer line would wrap,
	// and "\r" goes back to the start of the last row only.
	width int
	shown bool
}

// newStatusLine writes progress on w only when w is a terminal.
func newStatusLine(w io.Writer) *statusLine {
	l := &statusLine{w: w, tty: isTerminal(w)}
	if l.tty {
		l.width, _, _ = term.GetSize(int(w.(*os.File).Fd()))
	}
	return l
}

// show replaces the progress line.
func (l *statusLine) show(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.tty {
		return
	}
	fmt.Fprint(l.w, "\r\033[K"+fit(fmt.Sprintf(format, args...)+" …", l.width))
	l.shown = true
}

// fit cuts s to less than width columns (counting a rune as one), ending
// it with "…"; width 0 leaves s whole. The last column stays free: some
// terminals wrap as soon as it is written.
func fit(s string, width int) string {
	if width <= 0 || utf8.RuneCountInString(s) < width {
		return s
	}
	r := []rune(s)
	return string(r[:max(width-2, 0)]) + "…"
}

// clear erases the progress line, if one is shown.
func (l *statusLine) clear() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
}

func (l *statusLine) clearLocked() {
	if l.shown {
		fmt.Fprint(l.w, "\r\033[K")
		l.shown = false
	}
}

// println writes a line that stays, terminal or not.
func (l *statusLine) println(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.clearLocked()
	fmt.Fprintf(l.w, format+"\n", args...)
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// pullProgress shows each bundle image pull of a plan on line. The total
// is not known ahead: the planner finds the bundles it needs as it
// resolves, so the line counts the pulls started.
type pullProgress struct {
	plan.ImageSource
	line *statusLine
	n    atomic.Int64
}

// BundleImage pulls image through the wrapped source, after saying so.
func (p *pullProgress) BundleImage(ctx context.Context, image string) (string, fs.FS, error) {
	p.line.show("pulling bundle %d: %s", p.n.Add(1), image)
	return p.ImageSource.BundleImage(ctx, image)
}
