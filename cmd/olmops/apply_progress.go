//go:build !olmops_cli

package main

import (
	"sync"
	"time"

	"github.com/olmops/olmops/reconciler"
)

// waitEvery is how often, at most, the health wait's line is rewritten:
// polls come up to twice a second, several plans wait at once, and a line
// that changes faster than it can be read says nothing.
const waitEvery = time.Second

// waitLine shows, on a terminal, each health poll's verdict (which object
// is not yet healthy, and kstatus' message) in place of the line
// applyEvents keeps while a hop waits, at most once every every. Off a
// terminal line writes nothing, so neither does waitLine.
type waitLine struct {
	line  *statusLine
	every time.Duration
	now   func() time.Time

	mu   sync.Mutex
	last time.Time
}

// newWaitLine rate-limits with the wall clock.
func newWaitLine(line *statusLine) *waitLine {
	return &waitLine{line: line, every: waitEvery, now: time.Now}
}

// show rewrites the line with the verdict e, unless the last one was
// shown less than every ago.
func (w *waitLine) show(e reconciler.Event) {
	w.mu.Lock()
	defer w.mu.Unlock()
	now := w.now()
	if !w.last.IsZero() && now.Sub(w.last) < w.every {
		return
	}
	w.last = now
	w.line.show("%s", waitText(e))
}

// waitText is the status line of a health wait's verdict: the hop, then
// what it waits for, as in "waiting until healthy: ns/etcd: applying
// etcdoperator.v0.9.4 (hop 1/1): Deployment etcd-operator: InProgress:
// Available: 0/1".
func waitText(e reconciler.Event) string {
	return "waiting until healthy: " + e.Message
}
