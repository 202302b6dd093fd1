package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// printer writes the demo's output; the watcher prints from its own
// goroutine, so every write takes the lock. Paths under the temporary
// folder are shown as $DEMO/... to keep lines short.
type printer struct {
	mu    sync.Mutex
	w     io.Writer
	start time.Time
	tmp   string
}

func newPrinter(w io.Writer) *printer { return &printer{w: w, start: time.Now()} }

func (p *printer) elapsed() time.Duration { return time.Since(p.start).Round(100 * time.Millisecond) }

func (p *printer) printf(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := fmt.Sprintf(format, args...)
	if p.tmp != "" {
		s = strings.ReplaceAll(s, p.tmp, "$DEMO")
	}
	io.WriteString(p.w, s)
}

func (p *printer) heading(n int, title string) { p.printf("\n== %d. %s ==\n", n, title) }

// line is a remark of the demo itself.
func (p *printer) line(format string, args ...any) { p.printf("   "+format+"\n", args...) }

// command shows a command the way a user would type it.
func (p *printer) command(name string, args ...string) {
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = a
		if strings.ContainsAny(a, " '\"$") {
			quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	p.printf("   $ %s %s\n", name, strings.Join(quoted, " "))
}

// block indents a command's output under it.
func (p *printer) block(text string) {
	text = strings.TrimRight(text, "\n")
	if text == "" {
		return
	}
	p.printf("     %s\n", strings.ReplaceAll(text, "\n", "\n     "))
}

// event is something the watcher saw change, stamped with the time since
// the demo started.
func (p *printer) event(format string, args ...any) {
	p.printf("   %6.1fs  %s\n", time.Since(p.start).Seconds(), fmt.Sprintf(format, args...))
}
